#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <editline/readline.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* Swift 6 refuses to touch C global variables (shared mutable state), and
   libedit's readline interface is configured through them. These wrappers
   are the only way mrq reads or writes them; mrq drives the line editor
   from a single thread. */

/* Names the program for ~/.editrc, installs the completion callback and
   sets the characters that separate words for completion. */
static inline void mrq_rl_configure(const char *name,
                                    rl_completion_func_t *complete,
                                    const char *word_breaks) {
    rl_readline_name = strdup(name);
    rl_attempted_completion_function = complete;
    rl_basic_word_break_characters = strdup(word_breaks);
    rl_completer_word_break_characters = strdup(word_breaks);
}

/* readline, telling also why it returned NULL: *interrupted is 1 when
   the read libedit was blocked in failed with EINTR (a signal, in mrq
   Ctrl-C), 0 at end of input or on Ctrl-D. libedit keeps the failed
   read's errno through its cleanup and hands it back; errno is captured
   here, before any Swift code can change it. */
static inline char *mrq_readline(const char *prompt, int *interrupted) {
    errno = 0;
    char *line = readline(prompt);
    *interrupted = line == NULL && errno == EINTR;
    return line;
}

/* Called from the completion callback: no filename completion fallback. */
static inline void mrq_rl_completion_over(void) {
    rl_attempted_completion_over = 1;
}

/* What libedit adds after a completion that is the only candidate: a
   space, a closing quote, or nothing (0) after a directory. */
static inline void mrq_rl_set_append_character(int character) {
    rl_completion_append_character = character;
}

/* The cursor, a byte offset into the line being edited. */
static inline int mrq_rl_point(void) { return rl_point; }

/* A malloc'd copy of the line being edited. */
static inline char *mrq_rl_copy_line(void) { return rl_copy_text(0, rl_end); }

/* The most recent history entry, or NULL. */
static inline const char *mrq_history_last(void) {
    HIST_ENTRY *entry = history_get(history_base + history_length - 1);
    return entry ? entry->line : NULL;
}

/* ioctl is variadic, so Swift cannot call it; this wraps TIOCGWINSZ.
   Returns the width of the terminal on fd in columns, or 0 if fd is not
   a terminal. */
static inline int mrq_terminal_columns(int fd) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
        return size.ws_col;
    }
    return 0;
}
