#include "CPostgresEngine.h"

// Defined in Swift by ObjectStorePostgres (@_cdecl): registers the engine
// with ObjectStore's coordinator.
extern void mrq_postgres_register_engine(void);

// Runs when the program (or library) that links ObjectStorePostgres loads,
// so that PersistentStoreType.forURL and addPersistentStore(at:) find the
// engine without the program naming PersistentStoreType.postgres first.
__attribute__((constructor)) static void mrq_postgres_load(void) {
    mrq_postgres_register_engine();
}
