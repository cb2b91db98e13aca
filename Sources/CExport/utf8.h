#ifndef CSVFREEZE_CEXPORT_UTF8_H
#define CSVFREEZE_CEXPORT_UTF8_H
#include <stddef.h>

/* The length of the valid UTF-8 sequence at p (a byte of 0x80 or more), or minus the
   length of its maximal invalid subpart (at least 1). */
static inline long utf8_sequence(const unsigned char *p, size_t available) {
    unsigned char lead = p[0], low = 0x80, high = 0xBF;
    size_t length;
    if (lead >= 0xC2 && lead <= 0xDF) length = 2;
    else if (lead == 0xE0) { length = 3; low = 0xA0; }
    else if ((lead >= 0xE1 && lead <= 0xEC) || lead == 0xEE || lead == 0xEF) length = 3;
    else if (lead == 0xED) { length = 3; high = 0x9F; }
    else if (lead == 0xF0) { length = 4; low = 0x90; }
    else if (lead >= 0xF1 && lead <= 0xF3) length = 4;
    else if (lead == 0xF4) { length = 4; high = 0x8F; }
    else return -1;
    for (size_t index = 1; index < length; index++) {
        if (index >= available) return -(long)index;
        unsigned char byte = p[index];
        unsigned char lower = index == 1 ? low : 0x80, upper = index == 1 ? high : 0xBF;
        if (byte < lower || byte > upper) return -(long)index;
    }
    return (long)length;
}

#endif
