import Lua
import Testing

/// Issue 32: the view and table encoders read a hook's result where it lies on the stack
/// (`LuaStackReader`), with no `LuaValue` or registry reference per value; it reads what
/// `LuaState.get`/`entries` read.
@Suite struct LuaStackReaderTests {
    func table(_ lua: LuaState, _ source: String) throws -> LuaValue {
        try #require(try lua.run(source, chunkName: "t.lua").first)
    }

    @Test func aFrozenTableIsReadThroughToItsFieldsAsGetReadsIt() throws {
        let lua = try makeState()
        let value = try table(lua, "return {a = 1, b = {c = 'x'}, 10, 20}")
        let table = try #require(value.tableRef)
        lua.freeze(table, as: "the test table")
        let read = lua.reading(value) { reader, t in
            (reader.field(t, "a").integer, reader.field(reader.field(t, "b"), "c").stringBytes.map { Array($0) },
             reader.length(t), reader.count(t), reader.element(t, 2).integer)
        }
        #expect(read.0 == 1 && read.1 == Array("x".utf8) && read.2 == 2 && read.3 == 4 && read.4 == 20)
        #expect(lua.get(table, "a") == 1)
    }

    @Test func keysComeInPairsOrderAndAKeyThatIsNotUTF8ReadsItsOwnField() throws {
        let lua = try makeState()
        let value = try table(lua, #"return {[true] = 't', b = 'b', ["\xff"] = 'bad', [2] = 'two', [1.5] = 'half', a = 'a'}"#)
        let read: [(String, String)] = lua.reading(value) { reader, t in
            reader.withKeys(t) { keys in
                keys.map { key in
                    reader.restoring {
                        (key.value.description, reader.field(t, key: key.slot).stringBytes.map { String(decoding: $0, as: UTF8.self) } ?? "nil")
                    }
                }
            }
        }
        #expect(read.map(\.0) == ["1.5", "2", "a", "b", "\u{FFFD}", "true"])
        #expect(read.map(\.1) == ["half", "two", "a", "b", "bad", "t"])
        // The same order `entries` gives, which the encoders wrote before.
        #expect(lua.entries(try #require(value.tableRef)).map(\.key.description) == read.map(\.0))
    }

    @Test func whatAReadingPushedIsGoneAfterIt() throws {
        let lua = try makeState()
        let value = try table(lua, "local t = {} for i = 1, 100 do t[i] = {i} end return t")
        // Far more pushes than a stack holds, were any left behind: every read still answers.
        for _ in 0..<6_000 {
            let sum = lua.reading(value) { reader, t in
                (1...100).reduce(0) { sum, i in sum + (reader.element(reader.element(t, Int64(i)), 1).integer ?? -1_000_000) }
            }
            guard sum == 5050 else { Issue.record("read \(sum)"); return }
        }
    }

    @Test func slotsTellNumbersStringsAndOtherValuesApart() throws {
        let lua = try makeState()
        let value = try table(lua, "return {1, 2.5, 3.0, 'é', true, print, {}}")
        let kinds: [String] = lua.reading(value) { reader, t in
            (1...8).map { i in
                reader.restoring {
                    let slot = reader.element(t, Int64(i))
                    return "\(slot.kind) \(slot.typeName) \(slot.intValue.map(String.init) ?? "-")"
                }
            }
        }
        #expect(kinds == ["integer number 1", "float number -", "float number 3", "string string -", "boolean boolean -",
                          "other function -", "table table -", "nil nil -"])
    }

    /// Entries kept on the stack from one walk read as `get` reads them: a frozen table
    /// among the values is read through to its fields.
    @Test func keptEntriesReadAsGetReadsThemAFrozenValueThroughToItsFields() throws {
        let lua = try makeState()
        let inner = try #require(try table(lua, "inner = {x = 7} return inner").tableRef)
        lua.freeze(inner, as: "the inner table")
        let value = try table(lua, "return {a = 1, inner = inner, s = 'text'}")
        let read: [String] = lua.reading(value) { reader, t in
            var fields: [(String, LuaSlot)] = []
            reader.forEach(t) { key, value in
                fields.append((key.stringBytes.map { String(decoding: $0, as: UTF8.self) } ?? "?", value))
                return true
            }
            return fields.sorted { $0.0 < $1.0 }.map { name, slot in
                reader.restoring { "\(name)=\(slot.integer.map(String.init) ?? reader.field(slot, "x").integer.map { "x:\($0)" } ?? slot.typeName)" }
            }
        }
        #expect(read == ["a=1", "inner=x:7", "s=string"])
    }
}
