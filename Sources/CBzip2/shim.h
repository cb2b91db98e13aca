#ifndef CSVFREEZE_CBZIP2_SHIM_H
#define CSVFREEZE_CBZIP2_SHIM_H

/* bzlib.h uses FILE without including stdio.h. */
#include <stdio.h>
#include <bzlib.h>

#endif
