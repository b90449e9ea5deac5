// What the store's tests share (models built in code, the differential
// generator, the crash worker, the PostgreSQL test server), seen by every
// file of this target.
@_exported import StoreTestSupport
