#ifndef CSVFREEZE_CZIP_SHIM_H
#define CSVFREEZE_CZIP_SHIM_H

#include <zip.h>

#endif
