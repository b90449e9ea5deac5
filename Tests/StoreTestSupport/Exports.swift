// The test server lives in a target of its own, which the shell's tests
// share; exported here so that every file of this suite sees it, as it
// did when the server was a file of this target.
@_exported import PostgresTestServer
