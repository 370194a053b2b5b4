import DiceHost
@testable import DiceHostServer
import Foundation
import Testing

/// A broadcast writes each event once per form the seats see it in, the seats' shared
/// reads for their moves once, and quotes texts byte by byte (issue 32): every seat's
/// message must read byte for byte as when all of it was written for that seat alone, and
/// no seat may receive an event in a form `seen(by:)` does not give it.
struct BroadcastSameBytesTests {
    /// `GameEvent.quote` as it was written before issue 32: scalar by scalar.
    static func quoteScalarByScalar(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029 || scalar.value == 0x7F {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    @Test func aQuotedTextReadsAsWhenItWasQuotedScalarByScalar() {
        var texts = ["", "Ann", "say \"hi\"", "back\\slash", "line\nbreak\r\ttab", "\u{0}\u{1}\u{8}\u{c}\u{1b}\u{1f}", "del\u{7f}",
                     "\u{2028}sep\u{2029}", "\u{2027}\u{202a}\u{2030}", "€ 5 — ok", "⚀⚁⚂⚃⚄⚅", "A♠ K♥ 10♦", "🎲🎲 x2", "e\u{301}",
                     "\u{80}\u{9f}\u{a0}", "ends with \\", "\"", "\u{2028}", "a\u{E2}b", String(repeating: "long text ", count: 200)]
        // Every character of the first 0x3000 (control, Latin, the E2 lead byte's neighbours).
        texts.append(String(String.UnicodeScalarView((0..<0x3000).compactMap(Unicode.Scalar.init))))
        for text in texts {
            #expect(GameEvent.quote(text) == Self.quoteScalarByScalar(text), "\(Array(text.unicodeScalars.prefix(40)))")
        }
    }

    /// Every seat's and a spectator's events read the same from one `EventTexts` (in any
    /// order of asking, a seat asked twice) as written for that seat alone; returns how
    /// many lists held an event some other seat saw in another form (a hidden roll).
    static func compareEvents(_ game: Game, from first: Int, _ context: String) -> Int {
        let events = game.events[first...]
        let viewers: [String?] = game.playerNames.reversed().map(Optional.some) + [nil] + game.playerNames.map(Optional.some)
        var texts = SeatView.EventTexts(events)
        var differing = 0
        for viewer in viewers {
            let alone = SeatView.eventsJSON(events, for: viewer)
            #expect(texts.listJSON(for: viewer) == alone, "\(context), seat \(viewer ?? "spectator")")
            if alone != SeatView.eventsJSON(events, for: game.playerNames.first) { differing += 1 }
        }
        for event in events { #expect(event.json.contains(GameEvent.quote(event.kindName)), "\(context)") }
        return differing
    }

    /// Every seat's moves read the same with the shared reads made once for the moment as
    /// when each action was listed alone (`SeatMovesSameBytesTests`).
    static func compareMoves(_ game: Game, _ context: String) {
        let shared = SeatView.MovesContext(game)
        for viewer in game.playerNames.map(Optional.some) + [nil] {
            #expect(SeatView.movesJSON(game, for: viewer, shared) == SeatMovesSameBytesTests.movesOneActionAtATime(game, for: viewer),
                    "\(context), seat \(viewer ?? "spectator")")
        }
    }

    static func play(_ file: String, players count: Int, seed: UInt64, steps: Int) -> Int {
        let players = ["Ann", "Bob", "Cy", "Dee"].prefix(count).map { $0 }
        guard let game = try? Game(rulesFile: file, players: players, seed: seed) else { return 0 }
        var picker = SeatMovesSameBytesTests.Picker(state: seed)
        var differing = compareEvents(game, from: 0, "\(file) seed \(seed) at start")
        compareMoves(game, "\(file) seed \(seed) at start")
        for step in 1...steps where !game.isOver {
            let before = game.events.count
            let seat = players[picker.next(players.count)]
            if game.rules.hasDice, picker.next(3) == 0 {
                try? game.roll(by: game.currentPlayer ?? seat)
            } else if let action = game.rules.actions.isEmpty ? nil : game.rules.actions[picker.next(game.rules.actions.count)],
                      let lists = try? game.legalArguments(of: action, by: seat), !lists.isEmpty {
                try? game.act(action, by: seat, arguments: lists[picker.next(lists.count)])
            } else {
                try? game.roll(by: game.currentPlayer ?? seat)
            }
            differing += compareEvents(game, from: before, "\(file) seed \(seed) step \(step)")
            compareMoves(game, "\(file) seed \(seed) step \(step)")
        }
        for event in game.events {
            #expect(GameLog.json(event) == Self.logJSONParsedBack(event), "\(file) seed \(seed): \(event)")
            for text in event.quotedTexts { #expect(GameEvent.quote(text) == quoteScalarByScalar(text), "\(file) seed \(seed)") }
        }
        return differing
    }

    /// An event as the log kept it before issue 32: `GameEvent.json` read back, its time and text set.
    static func logJSONParsedBack(_ event: GameEvent) -> JSONValue {
        var fields: [String: JSONValue] = [:]
        if case .object(let parsed)? = try? JSONValue(parsing: event.json) { fields = parsed }
        fields["t"] = .integer(Int64(event.time))
        fields["text"] = .string(event.description)
        return .object(fields)
    }

    @Test func aLoggedEventReadsAsItsJSONReadBackWithItsText() {
        let odd = "say \"x\"\\ \n\t\u{0}\u{7f}\u{2028} ⚂ 🎲"
        let roll = Roll(values: [3, 5], flag: .tooShort)
        let kinds: [GameEvent.Kind] = [
            .start(players: ["Ann", odd], seed: UInt64.max), .start(players: [], seed: 0), .start(players: ["Bob"], seed: UInt64(Int64.max)),
            .turn(player: odd), .roll(player: "Ann", roll: roll), .roll(player: "Ann", roll: Roll(values: [])), .say(odd), .say(""),
            .led(LEDCommand(.blink(on: 100, cycle: 200, count: 3), mask: LEDMask(rawValue: 63), color: LEDColor(red: 255, green: 0, blue: 9), priority: 2)),
            .led(LEDCommand(.off, mask: LEDMask(rawValue: 0))), .custom(name: odd, data: "{\"a\":1}"), .custom(name: "n", data: ""),
            .win(player: "Ann"), .lose(player: "Bob"), .draw, .eliminate(player: odd), .reload(odd), .error("snap.lua:3: boom"),
            .hiddenRoll(player: "Cy", dice: 5), .reveal(player: "Cy", roll: roll),
        ]
        for kind in kinds {
            for audience in [nil, [], ["Ann"], ["Ann", odd]] as [[String]?] {
                for time in [0, 1500, Int.max] {
                    let event = GameEvent(time: time, kind: kind, audience: audience)
                    #expect(GameLog.json(event) == Self.logJSONParsedBack(event), "\(event)")
                }
            }
        }
    }

    @Test func everyShippedGamesBroadcastReadsAsWhenEachSeatsMessageWasWrittenAlone() throws {
        let folder = TestServer.repositoryRules
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".lua") }.sorted()
        #expect(files.contains("liars-dice.lua") && files.contains("snap.lua"))
        var differing: [String: Int] = [:]
        for file in files {
            for players in 2...4 {
                for seed: UInt64 in [3, 11] {
                    differing[file, default: 0] += Self.play(folder + "/" + file, players: players, seed: seed, steps: 80)
                }
            }
        }
        // Liar's Dice hides the cups: seats were sent the same events in different forms.
        #expect((differing["liars-dice.lua"] ?? 0) > 20, "\(differing)")
    }
}

private extension GameEvent {
    /// The type word its JSON carries (`"roll"` for a hidden roll too).
    var kindName: String {
        switch kind {
        case .start: return "start"
        case .turn: return "turn"
        case .roll, .hiddenRoll: return "roll"
        case .say: return "say"
        case .led: return "led"
        case .custom: return "emit"
        case .win: return "win"
        case .lose: return "lose"
        case .draw: return "draw"
        case .eliminate: return "eliminate"
        case .reload: return "reload"
        case .error: return "error"
        case .reveal: return "reveal"
        }
    }

    /// The texts its JSON quotes.
    var quotedTexts: [String] {
        switch kind {
        case .start(let players, _): return players
        case .turn(let p), .win(let p), .lose(let p), .eliminate(let p), .hiddenRoll(let p, _): return [p]
        case .roll(let p, let r), .reveal(let p, let r): return [p, r.flag.rawValue]
        case .say(let text), .reload(let text), .error(let text): return [text]
        case .led(let command): return [command.description]
        case .custom(let name, let data): return [name, data]
        case .draw: return []
        }
    }
}

/// A room reads how its actions declare their arguments once per loaded rules (issue 32):
/// a hot reload that changes the declared choices changes the moves every seat is sent.
struct DeclaredMovesAfterReloadTests {
    @Test func aReloadThatChangesTheChoicesChangesTheMovesSent() async throws {
        let version = { (picks: String) in """
            local r = rules { name = "Pick", players = {1, 2}, dice = "1d6" }
            function r.roll(g, p, roll) g:say("rolled") end
            r.actions = { pick = function(g, p, n) g:say("picked %d", n) end }
            r.choices = { pick = \(picks) }
            return r
            """ }
        try await withRulesFolder(["pick.lua": version("{{1}, {2}}")]) { folder in
            var limits = ServerLimits()
            limits.watchRules = true
            limits.watchIntervalMilliseconds = 50
            let server = try await TestServer.start(rules: folder, limits: limits)
            defer { server.stop() }
            let a = try await server.client()
            try await a.hello()
            a.send(["type": "create", "rules": "pick.lua", "seats": 1])
            let room = try #require(await a.next("created")?["room"] as? String)
            a.send(["type": "join", "room": room, "name": "Ann"])
            let started = try #require(await a.next("events"))
            #expect(((started["state"] as? [String: Any])?["moves"] as? [String: Any])?["pick"] as? [[Int]] == [[1], [2]])
            try await Task.sleep(for: .milliseconds(1100)) // a new modification time
            try version("{{3}}").write(toFile: folder + "/pick.lua", atomically: true, encoding: .utf8)
            _ = try #require(await a.next("reloaded"))
            a.send(["type": "action", "seq": 1, "name": "pick", "args": [3]])
            let picked = try #require(await a.nextEvents(saying: "picked 3"))
            #expect(((picked["state"] as? [String: Any])?["moves"] as? [String: Any])?["pick"] as? [[Int]] == [[3]])
        }
    }
}

/// The state every client is sent is written as bytes, by appending (issue 32): it must
/// read byte for byte as when it was built from strings, for every seat and a spectator,
/// before the game starts and after every input, in every shipped game.
struct StateTextSameBytesTests {
    func channel(_ id: UInt64) -> ClientChannel {
        let (_, ended) = AsyncStream.makeStream(of: Void.self)
        return ClientChannel(id: id, connection: nil, backlog: 1000, ended: ended)
    }

    /// The server's clock moves between two reads: the texts are compared without it.
    static func withoutClock(_ text: String) -> String {
        text.replacingOccurrences(of: #""clock":-?[0-9]+"#, with: "\"clock\":_", options: .regularExpression)
    }

    @Test func everyShippedGamesStateReadsAsWhenItWasBuiltFromStrings() async throws {
        let catalog = try RuleCatalog(directory: TestServer.repositoryRules)
        let files = try FileManager.default.contentsOfDirectory(atPath: TestServer.repositoryRules).filter { $0.hasSuffix(".lua") }.sorted()
        var compared = 0
        for file in files {
            guard let entry = catalog.entry(file), entry.rules.maxPlayers >= 2, entry.rules.minPlayers <= 3 else { continue }
            let players = max(2, entry.rules.minPlayers)
            let room = Room(id: "same", entry: entry, params: [], seed: 5, seats: players, deviceRolls: false, limits: ServerLimits(), log: nil)
            #expect(await room.watch(client: channel(99)))
            let names = ["Ann", "Bob", "Cy"].prefix(players)
            for (index, name) in names.enumerated() {
                #expect(await room.join(name: name, client: channel(UInt64(index + 1))))
                let viewers: [String?] = names.prefix(index + 1).map(Optional.some) + [nil]
                for viewer in viewers {
                    let (new, old) = await (room.stateJSON(for: viewer), room.stateJSONBuiltFromStrings(for: viewer))
                    #expect(Self.withoutClock(new) == Self.withoutClock(old), "\(file) before the start, \(viewer ?? "spectator")")
                }
            }
            var picker = SeatMovesSameBytesTests.Picker(state: 5)
            for seq in 1...40 {
                guard let game = await room.game, !game.isOver else { break }
                let current = game.currentPlayer ?? names[picker.next(players)]
                let client = UInt64((names.firstIndex(of: current) ?? 0) + 1)
                if let action = game.rules.actions.isEmpty ? nil : game.rules.actions[picker.next(game.rules.actions.count)],
                   let lists = try? game.legalArguments(of: action, by: current), !lists.isEmpty, picker.next(2) == 0 {
                    let arguments = lists[picker.next(lists.count)].compactMap { value -> GameInput.Argument? in
                        switch value {
                        case .integer(let n): return .integer(n)
                        case .string(let s): return .string(s)
                        case .boolean(let b): return .boolean(b)
                        default: return nil
                        }
                    }
                    await room.input(.action(name: action, arguments: arguments), seq: Int64(seq), from: client)
                } else {
                    await room.input(.roll(values: nil, flag: .ok), seq: Int64(seq), from: client)
                }
                for viewer in names.map(Optional.some) + [nil] {
                    let (new, old) = await (room.stateJSON(for: viewer), room.stateJSONBuiltFromStrings(for: viewer))
                    #expect(Self.withoutClock(new) == Self.withoutClock(old), "\(file) input \(seq), \(viewer ?? "spectator")")
                    compared += 1
                }
            }
        }
        #expect(compared > 200)
    }
}

extension Room {
    /// `stateJSON(for:)` as it was written before issue 32's appends: from strings, `+` and interpolations.
    func stateJSONBuiltFromStrings(for viewer: String?) -> String {
        let rules = game?.rules ?? entry.rules
        var out = "{\"rules\":{\"file\":\(entry.file.jsonQuoted),\"name\":\(rules.name.jsonQuoted),\"dice\":\(rules.dice.text.jsonQuoted),"
            + "\"hasDice\":\(rules.hasDice),\"choices\":\(SeatView.choicesJSON(rules)),"
            + "\"minPlayers\":\(rules.minPlayers),\"maxPlayers\":\(rules.maxPlayers),"
            + "\"actions\":[\(rules.actions.map(\.jsonQuoted).joined(separator: ","))]},\"seats\":\(seatCount),"
            + "\"deviceRolls\":\(deviceRolls),\"spectators\":\(subscribers.values.filter { $0.seat == nil }.count),"
        guard let game, let session else {
            let players = seats.enumerated().map { index, seat in
                "{\"name\":\(seat.name.jsonQuoted),\"seat\":\(index + 1),\"connected\":\(seat.connections > 0)"
                    + (seat.left ? ",\"left\":true" : "") + (seat.ready ? ",\"ready\":true" : "") + "}"
            }
            return out + "\"phase\":\"waiting\",\"players\":[\(players.joined(separator: ","))]}"
        }
        let lines = game.hasView ? [] : session.describeState()
        let isOver = game.isOver || abandoned
        let current = abandoned ? nil : game.currentPlayer
        let players = seats.enumerated().map { index, seat -> String in
            var fields = "{\"name\":\(seat.name.jsonQuoted),\"seat\":\(index + 1),\"connected\":\(seat.connections > 0)"
                + (seat.left ? ",\"left\":true" : "") + (!isOver && seat.botPlays ? ",\"botPlaying\":true" : "")
                + (seat.ready ? ",\"ready\":true" : "") + ",\"current\":\(seat.name == current && !isOver)"
            if let table = game.player(seat.name).tableRef {
                fields += ",\"out\":\(game.lua.get(table, "eliminated").isTruthy)"
                switch game.hasView ? .nil : game.lua.get(table, "score") {
                case .integer(let n): fields += ",\"score\":\(n)"
                case .number(let d) where d.isFinite: fields += ",\"score\":\(d)"
                default: break
                }
            }
            let prefix = seat.name + ": "
            if lines.indices.contains(index + 1), lines[index + 1].hasPrefix(prefix) {
                fields += ",\"summary\":\(String(lines[index + 1].dropFirst(prefix.count)).jsonQuoted)"
            }
            return fields + "}"
        }
        let phase = isOver ? "over" : "playing"
        out += "\"phase\":\"\(phase)\",\"players\":[\(players.joined(separator: ","))],\"current\":\((current.map(\.jsonQuoted)) ?? "null"),"
        out += "\"now\":\(game.now),\"clock\":\(clockNow),\"nextTimer\":\(game.nextTimerDue.map(String.init) ?? "null"),"
        let hex = { (value: Int) in String(format: "%02x", min(max(value, 0), 255)) }
        let leds = game.led.colors(at: game.now).map { "\"#" + hex($0.red) + hex($0.green) + hex($0.blue) + "\"" }
        out += "\"leds\":[\(leds.joined(separator: ","))],"
        var tail = ""
        if let clock = turnClock {
            tail += "\"turnClock\":{\"player\":\(clock.player.map(\.jsonQuoted) ?? "null"),\"deadline\":\(clock.deadline),\"seconds\":\(turnSeconds)},"
        }
        if canAbandon { tail += "\"canAbandon\":true," }
        if abandoned { tail += "\"outcome\":\"abandoned\"," }
        switch abandoned ? nil : game.outcome {
        case .win(let p)?: tail += "\"outcome\":\("\(p) won".jsonQuoted),"
        case .draw?: tail += "\"outcome\":\"a draw\","
        case .loss(let p)?: tail += "\"outcome\":\("\(p) lost".jsonQuoted),"
        case nil: break
        }
        if let status = game.statusLine() { tail += "\"status\":\(status.jsonQuoted)," }
        if !lines.isEmpty { tail += "\"summary\":\((lines.first ?? "").jsonQuoted)," }
        tail += "\"eventCount\":\(game.forgottenEvents + game.events.count)}"
        if let lastRoll = SeatView.lastRollJSON(game, for: viewer) { out += "\"lastRoll\":\(lastRoll)," }
        var written = SeatView.WrittenViews()
        let (view, table) = SeatView.viewAndTableJSON(game, for: viewer, written: &written)
        out += "\"view\":\(view),\"viewer\":\(viewer.map(\.jsonQuoted) ?? "null"),"
        if let moves = SeatView.movesJSON(game, for: viewer) { out += "\"moves\":\(moves)," }
        if let table { out += "\"table\":\(table)," }
        return out + tail
    }
}
