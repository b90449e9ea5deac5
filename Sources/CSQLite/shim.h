#include <sqlite3.h>

/// Asks the CPU to bring the memory at `address` into the cache, without
/// waiting for it: a hint, which never faults, whatever the address.
static inline void mrq_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}
