#include <zlib.h>

/// `inflateInit2` is a macro that passes the library's version and the
/// stream's size, which Swift cannot expand: this wraps it.
static inline int mrq_inflate_init(z_stream *stream, int window_bits) {
    return inflateInit2(stream, window_bits);
}

/// `deflateInit2` for the same reason: level, raw or wrapped window, the
/// default memory level and strategy.
static inline int mrq_deflate_init(z_stream *stream, int level, int window_bits) {
    return deflateInit2(stream, level, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY);
}
