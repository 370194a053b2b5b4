import DiceHost
import Foundation
import Testing

/// A float in an input's REPL line reads back as the same `Double`, bit for bit: a log,
/// a transcript or a shrunk fuzz case printed as lines plays the same game.
@Suite struct FloatLineRoundTripTests {
    /// A fixed sequence of numbers (SplitMix64), so a failure is the same on every run.
    struct Draws {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        /// A double of any size up to 2^maxExponent, subnormals and both zeros included.
        mutating func double(maxExponent: Int) -> Double {
            let exponent = Int(next() % UInt64(maxExponent + 1075)) - 1074
            let fraction = Double(next() >> 12) / Double(1 << 52)
            let value = Double(sign: next() % 2 == 0 ? .plus : .minus, exponent: exponent, significand: 1 + fraction)
            return next() % 64 == 0 ? (value.sign == .minus ? -0.0 : 0.0) : value
        }
    }

    func session() throws -> GameSession {
        GameSession(game: try Game(rulesFile: "examples/rules/typed-arguments.lua", players: ["Ann"], seed: 1))
    }

    /// Parses `input.line` at the REPL: the input it read (whether the game took it or not).
    func readBack(_ input: GameInput, in session: GameSession) -> GameInput? {
        _ = session.run(input.line)
        return session.lastInput
    }

    /// The bits of every float an input holds (`==` takes 0 for -0).
    static func floatBits(_ input: GameInput) -> [UInt64] {
        switch input.kind {
        case .action(_, let arguments): return arguments.compactMap { if case .float(let d) = $0 { return d.bitPattern } else { return nil } }
        case .tilt(let x, let y): return [x.bitPattern, y.bitPattern]
        case .sensor(let samples, _): return samples.flatMap { $0.values.map(\.bitPattern) }
        default: return []
        }
    }

    @Test func randomFloatsInALineReadBackWithTheSameBits() throws {
        var draws = Draws(state: 46)
        var session = try session()
        for round in 0..<3000 {
            if round % 500 == 0 { session = try self.session() }  // well inside the history's limit
            let argument = draws.double(maxExponent: 1023)
            let x = draws.double(maxExponent: 0), y = draws.double(maxExponent: 0)
            let sample = draws.double(maxExponent: 18)
            let inputs = [
                GameInput(.action(name: "call", arguments: [.float(argument)])),
                GameInput(.tilt(x: x, y: y)),
                GameInput(.sensor(samples: [SensorSample(sensor: .touch, time: 0, values: [sample])], fromNow: true)),
            ]
            for input in inputs {
                let back = readBack(input, in: session)
                #expect(back == input, "\(input.line) read back as \(back?.line ?? "nothing")")
                #expect(back.map(Self.floatBits) == Self.floatBits(input), "\(input.line)")
            }
        }
    }

    @Test func aTinyFloatIsPrintedShortAndReadAsAFloat() throws {
        let session = try session()
        #expect(GameInput(.tilt(x: 1e-05, y: -0.0)).line == "tilt 1e-05 -0")
        #expect(GameInput(.tilt(x: 0.2, y: -1)).line == "tilt 0.2 -1")
        #expect(GameInput(.action(name: "call", arguments: [.float(1e-05)])).line == "call 1e-05")
        #expect(session.run("call 1e-05").lines == ["say Ann called with float 1e-05"])
        #expect(readBack(GameInput(.tilt(x: 1e-05, y: 0)), in: session) == GameInput(.tilt(x: 1e-05, y: 0)))
    }
}
