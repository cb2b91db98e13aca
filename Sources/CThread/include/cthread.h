#ifndef CSVFREEZE_CTHREAD_H
#define CSVFREEZE_CTHREAD_H

/* Names the calling thread (top -H, gdb): the first 15 bytes of `name`, as Linux keeps. */
void ct_set_thread_name(const char *name);

/* Processors the calling process may run on (its affinity mask, as nproc counts them);
   at least 1. */
int ct_processor_count(void);

/* Removes `file`, then the directory `folder` it is in, when the process exits (exit(),
   a return from main) or is ended by SIGTERM, SIGHUP, SIGINT or SIGQUIT while those have
   no other handler (the handler then re-raises the signal, so the exit status is the
   signal's). One pair at a time; 0 on success, -1 when a path is too long. */
int ct_remove_at_exit(const char *file, const char *folder);

#endif
