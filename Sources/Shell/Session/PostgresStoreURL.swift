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
              PostgresEngine().urlSchemes.contains(scheme.lowercased()) else { return nil }
        guard let url = URL(string: text), let parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw ShellFiles.Problem(message: ShellDiagnostics.badPostgresURL(redactingPasswords(in: text)))
        }
        if parts.password != nil || parts.queryItems?.contains(where: { $0.name == "password" }) == true {
            throw ShellFiles.Problem(message: ShellDiagnostics.passwordInPostgresURL(shown(url)))
        }
        return url
    }

    /// `text` (a line typed, a script's statement) with the password of
    /// every URL in it masked: `scheme://user:PASSWORD@` and a
    /// `password=` query item. `keepingLength` masks each character by
    /// one `*`, so that a diagnostic's caret still points where it did;
    /// otherwise the password becomes `********`. What the history keeps
    /// and what a diagnostic echoes goes through here.
    ///
    /// ```swift
    /// PostgresStoreURL.redactingPasswords(in: ".open postgres://app:hunter2@db/people")
    /// // ".open postgres://app:********@db/people"
    /// ```
    package static func redactingPasswords(in text: String, keepingLength: Bool = false) -> String {
        guard text.contains("://") else { return text }
        var result = text
        for pattern in passwordPatterns {
            let matches = pattern.matches(in: result, range: NSRange(result.startIndex..., in: result))
            for match in matches.reversed() {
                guard let range = Range(match.range(at: 1), in: result), !range.isEmpty else { continue }
                let mask = keepingLength ? String(repeating: "*", count: result[range].count) : "********"
                result.replaceSubrange(range, with: mask)
            }
        }
        return result
    }

    /// A URL's user-info password, and its `password=` query item.
    private static let passwordPatterns: [NSRegularExpression] = [
        #"[A-Za-z][A-Za-z0-9+.-]*://[^\s/@:"']*:([^\s/@"']*)@"#,
        #"://[^\s"']*?[?&]password=([^&\s"']*)"#,
    ].compactMap { try? NSRegularExpression(pattern: $0) }

    /// `url` as messages show it: without a password, should it hold one.
    package static func shown(_ url: URL) -> String {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.absoluteString }
        if parts.password != nil { parts.password = "********" }
        parts.queryItems = parts.queryItems?.map { $0.name == "password" ? URLQueryItem(name: $0.name, value: "********") : $0 }
        return parts.string ?? url.absoluteString
    }
}
