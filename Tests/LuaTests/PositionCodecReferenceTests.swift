import Foundation
import Lua
import Testing

/// The C position encoder (`position_codec.c`) against the Lua encoder it replaced,
/// kept in Fixtures/position-codec-reference.lua: on thousands of random positions
/// (mixed keys, shared tables, metatables, timers, last rolls, now and then a fault)
/// both give the same key byte for byte, or the same error word for word; and what the C
/// decoder puts back (from a position index, as an analysis decodes) encodes the same again.
@Suite struct PositionCodecReferenceTests {
    @Test func theCEncoderMatchesTheLuaOneByteForByte() throws {
        let lua = try LuaState(limits: LuaLimits(memoryBytes: 256 << 20, instructionBudget: nil))
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let source = try String(contentsOf: folder.appendingPathComponent("Fixtures/position-codec-reference.lua"), encoding: .utf8)
        let chunk = try lua.load(source, chunkName: "position-codec-reference")
        let raw = lua.rawMetatableFunctions()
        guard case .function(let compare)? = try lua.call(.function(chunk), [lua.rawNext, raw.get, raw.set, lua.get(lua.globals, "rawget"),
                                                                             lua.positionEncoderFactory(), lua.positionIndexFactory()],
                                                          budget: .some(nil)).first else {
            Issue.record("the reference did not load")
            return
        }
        let results = try lua.call(.function(compare), [.integer(4000)], budget: .some(nil))
        #expect(results.count == 4)
        #expect(results.first == .integer(4000))
        let roundTrips = results.count > 1 ? results[1].intValue ?? 0 : 0
        #expect(roundTrips > 500, "\(roundTrips) round trips")
        var errors: [String] = []
        if results.count > 2, case .table(let list) = results[2] {
            var i: Int64 = 1
            while case .string(let message) = lua.get(list, .integer(i)) { errors.append(message); i += 1 }
        }
        // Every kind of refusal came up, and both encoders gave it the same words.
        for expected in ["a table is used as a table key", "a function is used as a table key", "has __gc or __mode",
                         "(field lucky)", "(field __mode)", "restart: a hook can reach a player's last roll"] {
            #expect(errors.contains { $0.contains(expected) }, "no \(expected) among \(errors)")
        }
        if results.count > 3, case .table(let list) = results[3] {
            var i: Int64 = 1
            var mismatches: [String] = []
            while case .string(let message) = lua.get(list, .integer(i)), mismatches.count < 10 { mismatches.append(message); i += 1 }
            #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
        }
    }
}
