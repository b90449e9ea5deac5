import Foundation
import ObjectStore

extension PostgresStore {
    /// Where the store's connection went, as a URL without a password:
    /// the URL it was opened with, filled in as libpq filled it in (from
    /// `PGHOST`, `PGPORT`, `PGUSER`, `PGDATABASE` and its defaults), so
    /// `postgres://` alone shows as `postgres://mrq@127.0.0.1:5432/people`.
    package var location: URL? { connection.location }
}
