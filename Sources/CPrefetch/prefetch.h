#ifndef MRQ_PREFETCH_H
#define MRQ_PREFETCH_H

/// Asks the CPU to bring the memory at `address` into the cache, without
/// waiting for it: a hint, which never faults, whatever the address.
/// Swift has no spelling for it. Used by ObjectStore's `Prefetch` only.
static inline void mrq_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

#endif
