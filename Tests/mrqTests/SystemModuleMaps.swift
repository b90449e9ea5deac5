import Foundation

/// The compiler flags that let a tool run outside SwiftPM (swiftc,
/// symbolgraph-extract) load mrq's modules: one `-fmodule-map-file` per
/// C module of the package (every `Sources/*/module.modulemap`), so a
/// module added there is found without a list to keep up to date.
enum SystemModuleMaps {
    static func flags(root: URL) throws -> [String] {
        let sources = root.appendingPathComponent("Sources")
        return try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted()
            .map { sources.appendingPathComponent($0).appendingPathComponent("module.modulemap") }
            .filter { FileManager.default.fileExists(atPath: $0.path) }
            .flatMap { ["-Xcc", "-fmodule-map-file=" + $0.path] }
    }
}
