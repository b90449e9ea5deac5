import Foundation
import Predicates
import Testing

@testable import ObjectStore

/// The test models under `Fixtures/Models`.
enum ModelFixtures {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Models")

    static func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    static func load(_ name: String) throws -> ManagedObjectModel {
        try ManagedObjectModel(contentsOf: url(name))
    }

    /// The error loading `name` throws.
    static func loadError(_ name: String) -> ModelError? {
        do {
            _ = try load(name)
            return nil
        } catch {
            return error as? ModelError
        }
    }

    /// Parses XML held in a string.
    static func parse(_ xml: String, file: String = "contents") throws -> ManagedObjectModel {
        try ManagedObjectModel(xcdatamodelContents: Data(xml.utf8), file: file)
    }

    static func model(entities body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
        \(body)
        </model>
        """
    }

    /// The archive as text, to show what differs when two models do.
    static func dump(_ model: ManagedObjectModel) -> String {
        String(decoding: model.archived(), as: UTF8.self)
    }
}
