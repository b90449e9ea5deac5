#include <errno.h>
#include <langinfo.h>
#include <locale.h>
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

/* Sets the program's locale from the environment (LC_ALL, LC_*, LANG),
   which libedit needs before it starts: it reads and writes multi-byte
   characters in the locale's encoding, and a program starts in the "C"
   locale, where every byte above 127 is dropped as it is typed. When the
   environment names no UTF-8 encoding (nothing set, "C", "POSIX", or a
   locale that is not installed), characters are UTF-8 all the same
   ("C.UTF-8"): mrq reads and writes nothing else. Numbers stay in the
   "C" locale: Foundation formats them with printf, which would write
   "3,5" under a German LC_NUMERIC. Returns 1 when the encoding is UTF-8. */
static inline int mrq_set_locale(void) {
    if (setlocale(LC_ALL, "") == NULL) setlocale(LC_CTYPE, "");
    const char *ctype = setlocale(LC_CTYPE, NULL);
    const char *codeset = nl_langinfo(CODESET);
    if (ctype == NULL || strcmp(ctype, "C") == 0 || strcmp(ctype, "POSIX") == 0
        || codeset == NULL || strcmp(codeset, "UTF-8") != 0) {
        if (setlocale(LC_CTYPE, "C.UTF-8") == NULL) {
            setlocale(LC_CTYPE, "en_US.UTF-8");
        }
    }
    setlocale(LC_NUMERIC, "C");
    codeset = nl_langinfo(CODESET);
    return codeset != NULL && strcmp(codeset, "UTF-8") == 0;
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

/* The line being edited up to the cursor, malloc'd, or NULL. libedit's
   rl_copy_text gives one byte less than asked (it passes the length to
   strlcpy as the size), so with the cursor at the end of the line its
   last byte is missing; that byte is taken from rl_line_buffer, which
   _rl_update_pos has just brought up to date, when the rest of it agrees
   with the copy. */
static inline char *mrq_rl_line_before_cursor(void) {
    if (rl_point < 0 || rl_end < rl_point) return NULL;
    char *copy = rl_copy_text(0, rl_end);
    if (copy == NULL) return NULL;
    size_t have = strlen(copy);
    size_t point = (size_t)rl_point;
    if (have >= point) {
        copy[point] = '\0';
        return copy;
    }
    if (have + 1 == point && rl_line_buffer != NULL
        && strncmp(rl_line_buffer, copy, have) == 0 && rl_line_buffer[have] != '\0') {
        char *whole = realloc(copy, point + 1);
        if (whole == NULL) { free(copy); return NULL; }
        whole[have] = rl_line_buffer[have];
        whole[point] = '\0';
        return whole;
    }
    free(copy);
    return NULL;
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

/* The height of the terminal on fd in lines, or 0 if fd is not a
   terminal. */
static inline int mrq_terminal_rows(int fd) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_row > 0) {
        return size.ws_row;
    }
    return 0;
}
