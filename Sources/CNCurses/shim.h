#ifndef CSVFREEZE_CNCURSES_SHIM_H
#define CSVFREEZE_CNCURSES_SHIM_H
/* SwiftPM drops pkg-config's -D flags; these enable the wide-character API. */
#define NCURSES_WIDECHAR 1
#define _XOPEN_SOURCE_EXTENDED 1
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <locale.h>
#include <stdio.h>
#include <wchar.h>
#include <ncursesw/curses.h>

/* Macros Swift cannot import, as functions. */
static inline int cf_lines(void) { return LINES; }
static inline int cf_cols(void) { return COLS; }
static inline WINDOW *cf_stdscr(void) { return stdscr; }
static inline int cf_color_pair(int n) { return (int)COLOR_PAIR(n); }
static inline int cf_attr_bold(void) { return (int)A_BOLD; }
static inline int cf_attr_reverse(void) { return (int)A_REVERSE; }
static inline int cf_attr_underline(void) { return (int)A_UNDERLINE; }
static inline int cf_attr_dim(void) { return (int)A_DIM; }
static inline int cf_attr_italic(void) { return (int)A_ITALIC; }
/* The attributes the terminal can show (its terminfo), so a missing one gets a stand-in. */
static inline int cf_term_attrs(void) { return (int)term_attrs(); }
static inline int cf_attr_normal(void) { return (int)A_NORMAL; }
static inline int cf_key_code_yes(void) { return KEY_CODE_YES; }
static inline int cf_key_resize(void) { return KEY_RESIZE; }
static inline int cf_key_f0(void) { return KEY_F0; }

/* Mouse masks are macros built from other macros; Swift sees them as functions.
   ncurses reports five buttons: 4 and 5 are the wheel (no horizontal wheel). */
static inline mmask_t cf_mouse_wanted(void) {
    return BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED | BUTTON_SHIFT;
}
static inline int cf_mouse_is_press(mmask_t s) { return (s & BUTTON1_PRESSED) != 0; }
static inline int cf_mouse_is_wheel_up(mmask_t s) { return (s & BUTTON4_PRESSED) != 0; }
static inline int cf_mouse_is_wheel_down(mmask_t s) { return (s & BUTTON5_PRESSED) != 0; }
static inline int cf_mouse_is_shifted(mmask_t s) { return (s & BUTTON_SHIFT) != 0; }
static inline int cf_key_mouse(void) { return KEY_MOUSE; }

/* Writes `n` wide characters at (y, x) with attributes, clipped by ncurses. */
static inline int cf_put(WINDOW *w, int y, int x, const wchar_t *s, int n, int attrs) {
    wattrset(w, attrs);
    return mvwaddnwstr(w, y, x, s, n);
}

/* Signals: the terminal must be restored on every way out, and a signal handler may
   only do async-signal-safe things. So SIGTERM, SIGHUP, SIGINT, SIGQUIT and SIGWINCH
   just write their number to a pipe that the event loop polls; the loop then restores
   the terminal (or resizes) in the normal way. A crash signal restores the saved tty
   modes and leaves the alternate screen with write(2), then dies as it would have. */
/* State lives in function-local statics: Swift's importer emits functions from a
   header, not its file-scope variables. */
typedef struct { int signal_fd; int tty_fd; int has_saved_modes; struct termios saved_modes; } cf_signal_state;
static inline cf_signal_state *cf_signals(void) {
    static cf_signal_state state = { -1, -1, 0 };
    return &state;
}

static void cf_on_signal(int sig) {
    int saved = errno;
    unsigned char byte = (unsigned char)sig;
    if (cf_signals()->signal_fd >= 0) { ssize_t ignored = write(cf_signals()->signal_fd, &byte, 1); (void)ignored; }
    errno = saved;
}

static void cf_on_crash(int sig) {
    cf_signal_state *state = cf_signals();
    if (state->tty_fd >= 0) {
        static const char reset[] = "\033[0m\033[?1000l\033[?1006l\033[?2004l\033[?25h\033[?1049l\r\n";
        ssize_t ignored = write(state->tty_fd, reset, sizeof reset - 1); (void)ignored;
        if (state->has_saved_modes) tcsetattr(state->tty_fd, TCSANOW, &state->saved_modes);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Installs the handlers; `pipe_fd` is the write end of the loop's wake pipe. */
static inline void cf_install_signal_handlers(int pipe_fd, int tty_fd) {
    cf_signal_state *state = cf_signals();
    state->signal_fd = pipe_fd;
    state->tty_fd = tty_fd;
    if (tcgetattr(tty_fd, &state->saved_modes) == 0) state->has_saved_modes = 1;
    static const int handled[] = { SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGWINCH };
    static const int fatal[] = { SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE };
    struct sigaction action;
    memset(&action, 0, sizeof action);
    sigemptyset(&action.sa_mask);
    /* A parent may have started us with these blocked; they must arrive. */
    sigset_t wanted;
    sigemptyset(&wanted);
    action.sa_handler = cf_on_signal;
    for (size_t i = 0; i < sizeof handled / sizeof handled[0]; i++) {
        sigaction(handled[i], &action, NULL);
        sigaddset(&wanted, handled[i]);
    }
    action.sa_handler = cf_on_crash;
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) sigaction(fatal[i], &action, NULL);
    pthread_sigmask(SIG_UNBLOCK, &wanted, NULL);
}

/* The tty's size in rows and columns (0 when it cannot be read). */
static inline void cf_tty_size(int fd, int *rows, int *cols) {
    struct winsize size;
    memset(&size, 0, sizeof size);
    if (ioctl(fd, TIOCGWINSZ, &size) == 0) { *rows = size.ws_row; *cols = size.ws_col; }
    else { *rows = 0; *cols = 0; }
}

#endif
