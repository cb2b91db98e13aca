#ifndef CSVFREEZE_CTHREAD_H
#define CSVFREEZE_CTHREAD_H

/* Names the calling thread (top -H, gdb): the first 15 bytes of `name`, as Linux keeps. */
void ct_set_thread_name(const char *name);

/* Processors the calling process may run on (its affinity mask, as nproc counts them);
   at least 1. */
int ct_processor_count(void);

#endif
