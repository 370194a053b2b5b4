import Foundation
import Lua
import Testing

/// Line coverage rides on the budget's own hook (line events of the same hook): the
/// lines of script files that ran are counted, those never run are reported exactly,
/// and the budget counts and trips exactly as it does without coverage.
@Suite struct LuaCoverageTests {
    /// A fresh folder from mkdtemp holding `source` as `name`.
    func scriptFile(_ source: String, name: String = "rules.lua") throws -> String {
        var template = Array((NSTemporaryDirectory() + "/dicehost-coverage-XXXXXX").utf8CString)
        let folder = try #require(mkdtemp(&template).map { String(cString: $0) })
        let path = folder + "/" + name
        try source.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Runs `body` on a state made while `coverage` is current; the state is freed
    /// (and its counts added) before this returns.
    func withCoveredState(_ coverage: LuaCoverage, budget: Int? = 5_000_000, _ body: (LuaState) throws -> Void) throws {
        try LuaCoverage.$current.withValue(coverage) {
            let lua = try makeState(budget: budget)
            try body(lua)
        }
    }

    @Test func aBranchNeverTakenIsReportedWithExactlyItsLines() throws {
        let path = try scriptFile("""
            local t = {}
            function t.sign(x)
              if x > 0 then
                return "up"
              else
                local word = "down"
                return word
              end
            end
            return t
            """)
        let coverage = LuaCoverage()
        try withCoveredState(coverage) { lua in
            let module = try #require(try lua.call(.function(lua.load(file: path))).first?.tableRef)
            let sign = lua.get(module, path: "sign")
            let first = try lua.call(sign, [.integer(3)]), second = try lua.call(sign, [.integer(5)])
            #expect(first == [.string("up")] && second == [.string("up")])
        }
        let report = coverage.report()
        #expect(report.count == 1)
        let file = try #require(report.first)
        #expect(file.path == URL(fileURLWithPath: path).standardizedFileURL.path)
        #expect(file.missed == [6, 7])
        #expect(file.hits[3] == 2)
        #expect(file.hits[4] == 2)
        #expect(file.hits[10] == 1)
        // The `if`'s `end` holds no code; the function's `end` makes the closure (run
        // once, with the chunk), and its own final return, never reached, does not count.
        #expect(file.hits[8] == nil)
        #expect(file.hits[9] == 1)
    }

    @Test func theLcovRecordListsEveryExecutableLineWithItsHits() throws {
        let path = try scriptFile("local a = 1\nif a > 1 then\n  a = 2\nend\nreturn a\n")
        let coverage = LuaCoverage()
        try withCoveredState(coverage) { lua in _ = try lua.call(.function(lua.load(file: path))) }
        let full = URL(fileURLWithPath: path).standardizedFileURL.path
        #expect(LuaCoverage.lcov(coverage.report()) == "TN:\nSF:\(full)\nDA:1,1\nDA:2,1\nDA:3,0\nDA:5,1\nLF:4\nLH:3\nend_of_record\n")
    }

    @Test func aCoroutinesLinesAreCounted() throws {
        let path = try scriptFile("""
            local co = coroutine.wrap(function()
              local a = 1
              coroutine.yield(a)
              return a + 1
            end)
            local first = co()
            return first + co()
            """)
        let coverage = LuaCoverage()
        try withCoveredState(coverage) { lua in
            let results = try lua.call(.function(lua.load(file: path)))
            #expect(results == [.integer(3)])
        }
        let file = try #require(coverage.report().first)
        #expect(file.missed == [])
        #expect(file.hits[2] == 1 && file.hits[3] == 1 && file.hits[4] == 1)
    }

    @Test func chunksThatAreNotFilesAreNotCounted() throws {
        let coverage = LuaCoverage()
        try withCoveredState(coverage) { lua in _ = try lua.run("local x = 1\nreturn x", chunkName: "inline.lua") }
        #expect(coverage.report().isEmpty)
    }

    @Test func aChunkAScriptLoadsUnderAFileNameIsNotCounted() throws {
        let path = try scriptFile("local f = load('local z = 1\\nreturn z', '@invented.lua')\nreturn f()\n")
        let coverage = LuaCoverage()
        try withCoveredState(coverage) { lua in
            let results = try lua.call(.function(lua.load(file: path)))
            #expect(results == [.integer(1)])
        }
        #expect(coverage.report().map(\.path) == [URL(fileURLWithPath: path).standardizedFileURL.path])
    }

    @Test func withoutCoverageNothingIsCounted() throws {
        let path = try scriptFile("return 1\n")
        let coverage = LuaCoverage()
        let lua = try makeState()
        _ = try lua.call(.function(lua.load(file: path)))
        #expect(coverage.report().isEmpty)
    }

    /// How far `source` (a function of a counter table) gets before the budget stops it.
    func stepsBeforeTheBudgetTrips(_ source: String, coverage: LuaCoverage?) throws -> LuaValue {
        let path = try scriptFile(source)
        var reached: LuaValue = .nil
        try LuaCoverage.$current.withValue(coverage) {
            let lua = try makeState(budget: 1_234_567)
            let function = try #require(try lua.call(.function(lua.load(file: path)), budget: .some(nil)).first)
            let counter = lua.newTable()
            lua.set(counter, .string("n"), .integer(0))
            do {
                _ = try lua.call(function, [.table(counter)])
                Issue.record("the budget did not stop the loop")
            } catch let error as LuaError {
                #expect(error.kind == .instructionBudget, "\(error)")
            }
            reached = lua.get(counter, path: "n")
            try expectUsable(lua)
        }
        return reached
    }

    @Test(arguments: [
        // Instructions spread over several lines, with charged C work (string.rep).
        "return function(t)\n  while true do\n    t.n = t.n + 1\n    if t.n % 7 == 0 then\n      local s = string.rep('x', 64)\n    end\n  end\nend\n",
        // The same inside a coroutine.
        "return function(t)\n  local co = coroutine.wrap(function()\n    while true do\n      t.n = t.n + 1\n      coroutine.yield()\n    end\n  end)\n  while true do co() end\nend\n",
        // A message handler that loops after the budget tripped: still stopped.
        "return function(t)\n  xpcall(function()\n    while true do t.n = t.n + 1 end\n  end, function()\n    while true do t.n = t.n + 1 end\n  end)\nend\n",
    ])
    func theBudgetTripsAtTheSameCountWithCoverageOn(_ source: String) throws {
        let without = try stepsBeforeTheBudgetTrips(source, coverage: nil)
        let coverage = LuaCoverage()
        let with = try stepsBeforeTheBudgetTrips(source, coverage: coverage)
        #expect(without == with)
        guard case .integer(let n) = with else { Issue.record("no count: \(with)"); return }
        #expect(n > 1000)
        // And the lines of the loop were counted while it ran.
        #expect(coverage.report().first?.hits.values.contains { $0 >= Int(n) } == true)
    }
}
