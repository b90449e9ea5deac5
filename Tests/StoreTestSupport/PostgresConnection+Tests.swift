import ObjectStorePostgres
import PostgresTestServer

extension PostgresConnection {
    /// A connection to a fresh database of the shared test server.
    package static func toFreshDatabase() throws -> PostgresConnection {
        try PostgresConnection(try PostgresServer.shared().createDatabase())
    }
}
