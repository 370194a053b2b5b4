import BigInt
import DiceHost
import Lua
import Testing

@Suite struct DiceDistributionTests {
    func counts(_ notation: String, depth: Int? = nil) throws -> [Int: Int] {
        let d = try DiceDistribution(DiceNotation(notation), depth: depth)
        return Dictionary(uniqueKeysWithValues: d.outcomes.map { ($0.total, Int($0.count)) })
    }

    /// The sum of plain dice (fixed-width words) against a plain convolution in BigUInt,
    /// up to counts of several words.
    @Test(arguments: [(1, 6), (3, 7), (9, 13), (12, 100), (70, 3)])
    func plainSumsAgreeWithAConvolution(dice: Int, sides: Int) throws {
        var expected: [BigUInt] = [1]
        for _ in 0..<dice {
            var next = [BigUInt](repeating: 0, count: expected.count + sides - 1)
            for (i, ways) in expected.enumerated() where !ways.isZero { for f in 0..<sides { next[i + f] += ways } }
            expected = next
        }
        let d = try DiceDistribution(DiceNotation("\(dice)d\(sides)"))
        #expect(d.outcomes.map(\.total) == Array(dice...(dice * sides)))
        #expect(d.outcomes.map(\.count) == expected)
        #expect(d.denominator == BigUInt(sides).power(dice))
    }

    @Test func twoD6IsTheTriangle() throws {
        let d = try DiceDistribution(DiceNotation("2d6"))
        #expect(d.denominator == 36)
        #expect(try counts("2d6") == [2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 7: 6, 8: 5, 9: 4, 10: 3, 11: 2, 12: 1])
        #expect(d.fraction(6) == "1/6")
        #expect(abs(d.mean - 7) < 1e-12)
        #expect(abs(d.standardDeviation - (35.0 / 6).squareRoot()) < 1e-12)
    }

    @Test func fourD6KeepHighestThreeMatchesTheKnownTable() throws {
        // The classic ability-score table: ways out of 1296 for totals 3...18.
        let known = [1, 4, 10, 21, 38, 62, 91, 122, 148, 167, 172, 160, 131, 94, 54, 21]
        let expected = Dictionary(uniqueKeysWithValues: known.enumerated().map { ($0.offset + 3, $0.element) })
        #expect(try counts("4d6kh3") == expected)
        #expect(try counts("4d6dl1") == expected)
        #expect(abs(try DiceDistribution(DiceNotation("4d6kh3")).mean - 15869.0 / 1296) < 1e-12)
    }

    @Test func keepLowestOfTwoD20() throws {
        // P(min = k) = ((21 - k)^2 - (20 - k)^2) / 400 = (41 - 2k) / 400.
        let expected = Dictionary(uniqueKeysWithValues: (1...20).map { ($0, 41 - 2 * $0) })
        #expect(try counts("2d20kl1") == expected)
    }

    /// Every roll listed one by one, through the runtime's own keep rules.
    func bruteForce(_ notation: DiceNotation) -> [Int: Int] {
        var result: [Int: Int] = [:]
        var values = [Int](repeating: 1, count: notation.count)
        while true {
            result[notation.total(of: values), default: 0] += 1
            var i = 0
            while i < values.count && values[i] == notation.sides { values[i] = 1; i += 1 }
            if i == values.count { break }
            values[i] += 1
        }
        return result
    }

    @Test(arguments: ["3d4kh2", "3d5kl2", "4d3kh1", "5d4dl2", "3d6+2", "2d8kl1-3", "6d2kh3"])
    func keepAndSumAgreeWithEveryRollListed(_ text: String) throws {
        #expect(try counts(text) == bruteForce(try DiceNotation(text)))
    }

    @Test func explodingDieToADepthReportsTheMassLeftOut() throws {
        // 1d6! followed one extra roll: 1-5 at 6/36 each, 7-11 at 1/36 each; 1/36 left out.
        let d = try DiceDistribution(DiceNotation("1d6!"), depth: 1)
        #expect(d.denominator == 36)
        #expect(try counts("1d6!", depth: 1) == [1: 6, 2: 6, 3: 6, 4: 6, 5: 6, 7: 1, 8: 1, 9: 1, 10: 1, 11: 1])
        #expect(d.leftOut == 1)
        let deep = try DiceDistribution(DiceNotation("1d6!"))
        #expect(deep.leftOutProbability < 1e-12 && deep.leftOutProbability > 0)
        #expect(abs(deep.mean - 4.2) < 1e-9)  // 3.5 × 6/5
    }

    @Test func explodingAtTheRuntimeCapIsExact() throws {
        let d = try DiceDistribution(DiceNotation("1d2!"), depth: HostLimits.explosionsPerDie)
        #expect(d.leftOut == 0)
        #expect(d.outcomes.last?.total == 2 * (HostLimits.explosionsPerDie + 1))
        #expect(d.outcomes.reduce(BigUInt(0)) { $0 + $1.count } == d.denominator)
    }

    @Test func explodingWithKeepAgreesWithTwoDiceListed() throws {
        // 2d3! to depth 1: each die is 1, 2 (1/3 each) or 4, 5 (1/9 each); keep the higher.
        let die: [(Int, Int)] = [(1, 3), (2, 3), (4, 1), (5, 1)]
        var expected: [Int: Int] = [:]
        for a in die { for b in die { expected[max(a.0, b.0), default: 0] += a.1 * b.1 } }
        #expect(try counts("2d3!kh1", depth: 1) == expected)
    }

    @Test func tooMuchWorkIsRefusedBeforeStarting() throws {
        #expect(throws: DiceDistribution.Problem.self) {
            try DiceDistribution(DiceNotation("100d1000kh99"))
        }
        #expect(throws: DiceDistribution.Problem.badDepth(101)) { try DiceDistribution(DiceNotation("1d6!"), depth: 101) }
    }

    @Test func scriptsReadDistributionsAsTables() throws {
        let game = try makeGame("""
            local r = rules { name = "D", players = 1 }
            function r.roll(g, p, r) end
            r.actions = {
              look = function(g, p)
                local d = dice.distribution("2d6")
                g.state.seven = d[7]
                g.state.two = d[2]
                g.state.best = dice.distribution("4d6kh3")[18]
              end,
              greedy = function(g, p) dice.distribution("100d1000") end,
            }
            return r
            """, players: ["Ann"])
        try game.act("look")
        #expect(game.lua.get(game.state.tableRef!, "seven") == .number(1.0 / 6))
        #expect(game.lua.get(game.state.tableRef!, "two") == .number(1.0 / 36))
        #expect(game.lua.get(game.state.tableRef!, "best") == .number(21.0 / 1296))
        do {
            try game.act("greedy")
            Issue.record("100d1000 was computed for a script")
        } catch {
            #expect("\(error)".contains("bad argument #1 to 'distribution' (100d1000 is too much work for a script"))
        }
        #expect(game.lua.get(game.state.tableRef!, "seven") == .number(1.0 / 6))
    }
}
