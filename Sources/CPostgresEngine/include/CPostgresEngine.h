// Registers the PostgreSQL store engine when the program loads (see
// register.c): linking ObjectStorePostgres is all it takes for a
// coordinator to open a postgres:// URL.
