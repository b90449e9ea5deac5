import Foundation
import ObjectStore
import ObjectStorePostgres

/// A PostgreSQL store named where the shell takes a store: `--store`,
/// `.open` and `.save-as`.
///
/// ```swift
/// let url = try PostgresStoreURL.parse("postgres://app@db.local/people")  // a URL
/// try PostgresStoreURL.parse("people.sqlite")                             // nil: a file
/// ```
///
/// A `postgres://` or `postgresql://` URL, whole or in part: libpq takes
/// what it leaves out from the `PG*` environment variables (`PGHOST`,
/// `PGPORT`, `PGUSER`, `PGDATABASE`, …), so `postgres://` alone and
/// `postgres:///people` are stores too. A password is never taken from
/// the shell's input, where `ps` and the shell's history show it to
/// others: it comes from `~/.pgpass` or `PGPASSWORD`, as for `psql`.
package enum PostgresStoreURL {
    /// The URL `text` names, or nil when it names a file (or `:memory:`);
    /// throws when it is a PostgreSQL URL that is malformed or holds a
    /// password.
    package static func parse(_ text: String) throws(ShellFiles.Problem) -> URL? {
        let scheme = text.prefix { $0 != ":" }
        guard text.dropFirst(scheme.count).hasPrefix("://"),
              let bare = URL(string: scheme + "://"), PersistentStoreType.forURL(bare) == .postgres else { return nil }
        guard let url = URL(string: text), let parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw ShellFiles.Problem(message: ShellDiagnostics.badPostgresURL(text))
        }
        if parts.password != nil || parts.queryItems?.contains(where: { $0.name == "password" }) == true {
            throw ShellFiles.Problem(message: ShellDiagnostics.passwordInPostgresURL(shown(url)))
        }
        return url
    }

    /// `url` as messages show it: without a password, should it hold one.
    package static func shown(_ url: URL) -> String {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.absoluteString }
        if parts.password != nil { parts.password = "********" }
        parts.queryItems = parts.queryItems?.map { $0.name == "password" ? URLQueryItem(name: $0.name, value: "********") : $0 }
        return parts.string ?? url.absoluteString
    }
}
