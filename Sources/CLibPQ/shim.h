// libpq, PostgreSQL's client library (Debian's libpq-dev): Debian keeps
// its headers in /usr/include/postgresql, which pkg-config names when it
// is installed; others keep them in the include path itself.
#if __has_include(<libpq-fe.h>)
#include <libpq-fe.h>
#else
#include <postgresql/libpq-fe.h>
#endif
