#ifndef CSVFREEZE_CZSTD_SHIM_H
#define CSVFREEZE_CZSTD_SHIM_H

#include <zstd.h>
#include <zstd_errors.h>

#endif
