@testable import DiceHostServer
import Foundation
import SQLiteNIO
import Testing

/// An action's arguments reach the rules with their JSON types, live and after a restart
/// on the store (which keeps the input as typed JSON): "07" stays a string, 2.0 a float,
/// "1e3" a string, a string with a space is one argument.
@Suite(.serialized)
struct TypedActionArgumentTests {
    static let probe = """
        local r = rules { name = "Probe", players = {1, 1}, dice = "1d6" }
        function r.roll(g, p, roll) end
        r.actions = { probe = function(g, p, ...)
          local out = {}
          for i = 1, select("#", ...) do
            local v = select(i, ...)
            out[#out + 1] = (math.type(v) or type(v)) .. ":" .. tostring(v)
          end
          g:say("%s", table.concat(out, " | "))
        end }
        return r
        """

    static let expected = "string:07 | string:true | float:2.0 | integer:2 | string:1e3 | string:Ann Lee | string:é"

    static func said(_ message: [String: Any]?) -> [String] {
        ((message?["events"] as? [[String: Any]]) ?? []).filter { $0["type"] as? String == "say" }.compactMap { $0["text"] as? String }
    }

    @Test func argumentsKeepTheirJSONTypesLiveAndAfterARestartOnTheStore() async throws {
        try await withRulesFolder(["probe.lua": Self.probe]) { folder in
            var configuration = DiceHostServer.Configuration(rulesDirectory: folder, port: 0)
            let store = (folder as NSString).appendingPathComponent("rooms.sqlite")
            configuration.store = store
            let first = try await TestServer.start(configuration: configuration)
            let ann = try await first.client()
            try await ann.hello()
            ann.send(["type": "create", "rules": "probe.lua", "seats": 1])
            let room = try #require(await ann.next("created")?["room"] as? String)
            ann.send(["type": "join", "room": room, "name": "Ann"])
            let token = try #require(await ann.next("joined")?["token"] as? String)
            // Written by hand: a JSON library would write 2.0 as 2.
            ann.send(#"{"type":"action","seq":1,"name":"probe","args":["07","true",2.0,2,"1e3","Ann Lee","é"]}"#)
            var live: [String: Any]?
            while live == nil, let events = await ann.next("events") {
                if !Self.said(events).isEmpty { live = events }
            }
            #expect(Self.said(live) == [Self.expected], "\(live ?? [:])")
            await first.stopAndWait()

            let check = try await SQLiteConnection.open(storage: .file(path: store))
            let rows = try await check.query("SELECT input, kind FROM inputs WHERE room = ?", [.text(room)])
            try await check.close()
            #expect(rows.allSatisfy { $0.column("kind")?.string == "json" }, "every input is stored typed")
            let stored = try #require(rows.compactMap { $0.column("input")?.string }.first { $0.contains(#""type":"action""#) })
            #expect(stored.contains(#""07""#) && stored.contains("2.0") && stored.contains(#""Ann Lee""#), "\(stored)")

            let second = try await TestServer.start(configuration: configuration)
            defer { second.stop() }
            let back = try await second.client()
            try await back.hello()
            back.send(["type": "join", "room": room, "token": token])
            #expect(try #require(await back.next("joined"))["rejoined"] as? Bool == true, "the replay of the typed input gave the stored events")
            let state = await back.next("state")
            #expect(Self.said(state) == [Self.expected], "\(state ?? [:])")
        }
    }
}
