import Foundation
@testable import ObjectStore
@testable import ObjectStorePostgres
import Predicates
import Testing

/// The model-based context test (`ContextModelTests`) on a PostgreSQL
/// store: the same random sequences of inserts, changes, relationships,
/// deletes, saves, merges, refreshes and undo over four contexts on two
/// coordinators (two connections), checked against the same reference
/// after every step. Each sequence has a schema of its own.
///
/// 80 sequences in `make test`; 5,000 with `MRQ_SOAK=1`
/// (`MRQ_PG_MODEL_SEQUENCES=n` for any other number).
@Suite struct PostgresContextModelTests {
    static var sequenceCount: Int {
        let environment = ProcessInfo.processInfo.environment
        if let n = environment["MRQ_PG_MODEL_SEQUENCES"].flatMap(Int.init) { return n }
        return environment["MRQ_SOAK"] == "1" ? 5_000 : 80
    }

    static let shards = 4

    @Test(arguments: 0..<shards)
    func randomSequencesAgreeWithTheReferenceOnPostgreSQL(shard: Int) throws {
        let server = try PostgresServer.shared()
        let postgres = { try server.createSchema() }
        let base = ProcessInfo.processInfo.environment["MRQ_MODEL_SEED"].flatMap(UInt64.init) ?? 0
        var n = shard
        var steps = 0
        while n < Self.sequenceCount {
            let seed = base &+ UInt64(n)
            let sequence = ContextModelTests.sequence(seed: seed)
            if let (step, message) = ContextModelTests.failure(of: sequence, postgres: postgres) {
                let shrunk = ContextModelTests.shrink(sequence, postgres: postgres)
                Issue.record("""
                    sequence with seed \(seed) fails on PostgreSQL at step \(step) (\(sequence.ops[max(0, step)])): \(message)
                    shrunk to \(shrunk.ops.count) steps, failing with: \
                    \(ContextModelTests.failure(of: shrunk, postgres: postgres)?.message ?? "?")
                    \(shrunk)
                    """)
                return
            }
            steps += sequence.ops.count
            n += Self.shards
        }
        #expect(steps > 0 || shard >= Self.sequenceCount)
    }
}
