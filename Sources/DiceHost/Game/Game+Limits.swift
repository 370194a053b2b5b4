import Lua

/// The bounds on what a rule script may ask of the host. Every integer that crosses
/// from Lua into the host is checked against one of these before any arithmetic is
/// done on it, so no script value can overflow the host's sums (a trap would end the
/// whole process, not just the input). Each is documented in docs/scripting.md.
public enum HostLimits {
    /// `on` and `cycle` of `led.blink`, and the duration of `led.fade`, in ms (a minute).
    public static let ledMilliseconds = 0...60_000
    /// `count` of `led.blink`.
    public static let blinkCount = 1...10_000
    /// `priority` of `led.blink`.
    public static let ledPriority = 0...100
    /// The delay of `timer.after` and the period of `timer.every`, in ms (24 hours of game time).
    public static let timerDelay = 0...86_400_000
    /// Timers one game may have pending at once.
    public static let pendingTimers = 1_000
    /// The game clock never passes 2^53 ms (about 285,000 years): `g.now` and every
    /// deadline stay exact as a float (JSON readers) and far from Int overflow.
    public static let maximumTime = 1 << 53
    /// Extra rolls one exploding die may make (so a die shows at most sides × 101).
    public static let explosionsPerDie = 100
}

// MARK: Range checks of values from Lua

extension HostLimits {
    /// `value` as an Int when it lies in `range`, else Lua's argument error:
    /// `bad argument #3 to 'blink' (count must be 1..10000, got 9223372036854775807)`.
    static func check(_ value: Int64, in range: ClosedRange<Int>, argument: Int, name: String, unit: String = "") throws -> Int {
        guard let n = Int(exactly: value), range.contains(n) else {
            throw LuaCall.Failure.argument(argument, "\(name) must be \(range.lowerBound)..\(range.upperBound)\(unit), got \(value)")
        }
        return n
    }
}

// MARK: Seats

extension Game {
    /// Whether `seat` is one of this game's seats (1-based).
    /// (Compared, not `seat - 1`: the seat may be Int.min.)
    func isSeat(_ seat: Int) -> Bool { seat >= 1 && seat <= min(playerTables.count, playerNames.count) }

    /// The seat of `g.current`, checked: a script may set `g.current` (or its `seat`) to
    /// anything, and the host indexes its players by this number.
    func currentSeat() throws -> Int {
        let value = lua.get(g, path: "current", "seat")
        guard !value.isNil else { throw GameError.refused("no current player") }
        guard let seat = value.intValue, isSeat(seat) else { throw badCurrentSeat(value) }
        return seat
    }

    /// A script set `g.current` to a table whose seat is not a player's.
    func badCurrentSeat(_ seat: LuaValue) -> GameError {
        let shown = seat.stringValue.map { "'\($0.prefix(40))'" } ?? String(seat.description.prefix(40))
        return GameError.refused("g.current must be one of g.players (its seat is \(shown), there are \(playerNames.count) players)")
    }

    /// A player's name by seat, never trapping on a seat the host did not check.
    func playerName(seat: Int) -> String {
        seat >= 1 && seat <= playerNames.count ? playerNames[seat - 1] : "seat \(seat)"
    }
}

// MARK: The game clock

extension Game {
    /// The clock after moving `milliseconds` forward, refused past `HostLimits.maximumTime`
    /// (checked before adding, so an app or a `tick` cannot overflow it).
    func clockTarget(after milliseconds: Int) throws -> Int {
        guard milliseconds <= HostLimits.maximumTime - host.now else {
            throw GameError.refused("the game clock cannot pass \(HostLimits.maximumTime) ms (it is at \(host.now) ms, asked to advance \(milliseconds) ms)")
        }
        return host.now + milliseconds
    }
}

// MARK: Host memory

/// Records the host keeps for a game outside Lua (the event log, the metrics), with the
/// bytes each takes, so the game's memory limit counts them too. The bytes are kept
/// per record (as running totals) because a rollback truncates the log to a saved
/// count: the total after any truncation is then exact, not re-estimated.
public struct HostRecords<Record>: RandomAccessCollection {
    public private(set) var records: [Record] = []
    /// `ends[i]`: the bytes of `records[0...i]`.
    private var ends: [Int] = []
    private let measure: (Record) -> Int

    init(measure: @escaping (Record) -> Int) { self.measure = measure }

    /// The estimated bytes of all records (their storage, strings, and this count).
    public var bytes: Int { ends.last ?? 0 }

    public var startIndex: Int { records.startIndex }
    public var endIndex: Int { records.endIndex }
    public subscript(position: Int) -> Record { records[position] }

    mutating func append(_ record: Record) {
        records.append(record)
        ends.append(bytes + measure(record) + MemoryLayout<Int>.stride)
    }

    mutating func removeSubrange(_ range: PartialRangeFrom<Int>) {
        records.removeSubrange(range)
        ends.removeSubrange(range)
    }

    mutating func removeAll(keepingCapacity: Bool = false) {
        records.removeAll(keepingCapacity: keepingCapacity)
        ends.removeAll(keepingCapacity: keepingCapacity)
    }

    /// Drops the first `count` records (the others' sizes stay theirs).
    mutating func removeFirst(_ count: Int) {
        let count = Swift.min(Swift.max(0, count), records.count)
        guard count > 0 else { return }
        let dropped = ends[count - 1]
        records.removeFirst(count)
        ends.removeFirst(count)
        for index in ends.indices { ends[index] -= dropped }
    }
}

extension HostRecords where Record == GameEvent {
    init() { self.init(measure: \.hostBytes) }
}

extension HostRecords where Record == (String, Double) {
    init() { self.init(measure: { MemoryLayout<(String, Double)>.stride + $0.0.utf8.count }) }
}

extension GameEvent {
    /// About what the event takes in memory: its storage and the text it holds.
    var hostBytes: Int {
        let text: Int
        switch kind {
        case .start(let players, _): text = players.reduce(0) { $0 + $1.utf8.count + MemoryLayout<String>.stride }
        case .turn(let p), .win(let p), .lose(let p), .eliminate(let p): text = p.utf8.count
        case .roll(let p, let roll), .reveal(let p, let roll): text = p.utf8.count + roll.values.count * MemoryLayout<Int>.stride
        case .hiddenRoll(let p, _): text = p.utf8.count
        case .say(let s), .reload(let s), .error(let s): text = s.utf8.count
        case .custom(let name, let data): text = name.utf8.count + data.utf8.count
        case .led, .draw: text = 0
        }
        let audienceBytes = audience?.reduce(0) { $0 + $1.utf8.count + MemoryLayout<String>.stride } ?? 0
        return MemoryLayout<GameEvent>.stride + text + audienceBytes
    }
}

extension Game {
    /// Refuses a host function that would add `bytes` of host records when the Lua heap
    /// and the records already kept would pass the game's memory limit
    /// (`LuaLimits.memoryBytes`): one limit for everything a script can make the game
    /// hold. Raised as a script error, so the input fails and is rolled back.
    func reserveHostMemory(_ bytes: Int, for function: String) throws {
        let limit = lua.limits.memoryBytes
        var heap = lua.memoryUsed
        let events = eventLog.bytes, metrics = recordedMetrics.bytes
        guard heap + events + metrics + bytes > limit else { return }
        // Garbage counts in the heap until a collection runs, and the collector waits for
        // the heap to double: garbage alone can pass the cap (Pig to 100's `solve` once
        // stopped at `g:record` that way). Collected first, as Lua's allocator does at
        // the cap (scripts may not set __gc, so no script code runs here).
        lua.collectGarbage()
        heap = lua.memoryUsed
        guard heap + events + metrics + bytes > limit else { return }
        throw LuaCall.Failure.message("\(function): the game's memory limit of \(Self.mebibytes(limit, whole: true)) is reached "
                                      + "(Lua heap \(Self.mebibytes(heap)), event log \(Self.mebibytes(events)), metrics \(Self.mebibytes(metrics)))")
    }

    /// Refuses an event (`g:say`, `g:emit`, an LED command) that would pass the limit;
    /// nothing to check when the game keeps no events.
    func reserveEvent(_ kind: GameEvent.Kind, for function: String) throws {
        guard recordsEvents else { return }
        try reserveHostMemory(GameEvent(time: host.now, kind: kind).hostBytes + MemoryLayout<Int>.stride, for: function)
    }

    /// Host records' bytes and the Lua heap, for tests and front ends.
    public var hostRecordBytes: Int { eventLog.bytes + recordedMetrics.bytes }

    /// "60.1 MiB"; "64 MiB" for a `whole` number of MiB (a limit as it was set).
    static func mebibytes(_ bytes: Int, whole: Bool = false) -> String {
        let mib = 1 << 20
        if whole, bytes % mib == 0 { return "\(bytes / mib) MiB" }
        let tenths = (bytes * 10 + mib / 2) / mib
        return "\(tenths / 10).\(tenths % 10) MiB"
    }
}
