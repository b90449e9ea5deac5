/// The engines ObjectStore brings, which every coordinator can use without
/// registering them: SQLite files, SQLite in memory, and the XML stores.
/// The one place outside the engines' folders that names them.
let builtInEngines: [any StoreEngine] = [
    SQLiteEngine(storeType: .sqlite),
    SQLiteEngine(storeType: .inMemory),
    XMLEngine(),
]
