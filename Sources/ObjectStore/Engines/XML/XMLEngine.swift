import Foundation

/// Opens XML stores, in mrq's format or Apple's.
struct XMLEngine: StoreEngine {
    var storeType: PersistentStoreType { .xml }
    /// None: a file is XML by its extension (`PersistentStoreType.forFile`).
    var urlSchemes: Set<String> { [] }

    func open(url: URL?, model: ManagedObjectModel, configuration: String?,
              options: PersistentStoreOptions) throws -> OpenedStore {
        guard let url else { throw StoreError(.misuse, "an XML store needs a URL") }
        return OpenedStore(try XMLStore(url: url, model: model, configuration: configuration, options: options))
    }

    func storedModel(at url: URL) throws -> ManagedObjectModel? {
        try XMLStore.storedModel(at: url)
    }

    /// None: an XML store is read whole and written whole, so it never
    /// migrates in place.
    func migrationPreview(at url: URL, model: ManagedObjectModel) throws -> MigrationPreview? { nil }
}
