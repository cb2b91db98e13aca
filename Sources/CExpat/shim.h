#ifndef CSVFREEZE_CEXPAT_SHIM_H
#define CSVFREEZE_CEXPAT_SHIM_H

#include <expat.h>

#endif
