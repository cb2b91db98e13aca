#ifndef CSVFREEZE_CLZMA_SHIM_H
#define CSVFREEZE_CLZMA_SHIM_H

#include <lzma.h>

/* LZMA_CONCATENATED is a macro built with UINT32_C, which Swift does not import. */
static const uint32_t csvfreeze_lzma_concatenated = LZMA_CONCATENATED;

#endif
