/* What Swift's Glibc module leaves out because glibc declares it only under
   _GNU_SOURCE: naming a thread and reading the affinity mask. And a file removed on a
   signal, whose handler must be C (async-signal-safe calls, no Swift runtime). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cthread.h"

void ct_set_thread_name(const char *name) {
    char shortened[16];
    strncpy(shortened, name, sizeof shortened - 1);
    shortened[sizeof shortened - 1] = 0;
    pthread_setname_np(pthread_self(), shortened);
}

int ct_processor_count(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int count = CPU_COUNT(&set);
        if (count > 0) return count;
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (int)online : 1;
}

/* The paths `ct_remove_at_exit` removes: fixed buffers, written once before any handler
   is installed, read by the handler with async-signal-safe calls only. */
static char removed_file[4096];
static char removed_folder[4096];

static void remove_now(void) {
    if (removed_file[0]) unlink(removed_file);
    if (removed_folder[0]) rmdir(removed_folder);
}

static void remove_on_signal(int number) {
    int saved = errno;
    remove_now();
    signal(number, SIG_DFL);
    raise(number);
    errno = saved;
}

int ct_remove_at_exit(const char *file, const char *folder) {
    if (strlen(file) >= sizeof removed_file || strlen(folder) >= sizeof removed_folder) return -1;
    strcpy(removed_file, file);
    strcpy(removed_folder, folder);
    atexit(remove_now);
    static const int handled[] = { SIGTERM, SIGHUP, SIGINT, SIGQUIT };
    for (size_t index = 0; index < sizeof handled / sizeof handled[0]; index++) {
        struct sigaction current;
        if (sigaction(handled[index], NULL, &current) != 0) continue;
        if (current.sa_handler != SIG_DFL) continue;
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = remove_on_signal;
        sigemptyset(&action.sa_mask);
        sigaction(handled[index], &action, NULL);
    }
    return 0;
}
