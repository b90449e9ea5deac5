import Testing

@Test func buildsAndLinks() { #expect(1 + 1 == 2) }
