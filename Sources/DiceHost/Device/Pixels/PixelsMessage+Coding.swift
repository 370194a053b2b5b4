extension PixelsMessage {
    /// Reads one notification (or one write, for a die in software). Errors say which
    /// message and field was wrong; nothing is guessed.
    public static func decode(_ bytes: [UInt8]) throws -> PixelsMessage {
        guard let first = bytes.first else { throw PixelsMessageError(.empty) }
        guard let id = ID(rawValue: first) else { throw PixelsMessageError(.unknownID(first)) }
        if id == .iAmADie, bytes.count != id.size { return .iAmADie(try decodeChunkedIdentity(bytes)) }
        guard bytes.count >= id.size else { throw PixelsMessageError(.short(expected: id.size, got: bytes.count), message: id.name) }
        guard bytes.count <= id.size else { throw PixelsMessageError(.long(expected: id.size, got: bytes.count), message: id.name) }
        var reader = ByteReader(bytes: bytes, message: id.name)
        reader.offset = 1
        switch id {
        case .whoAreYou: return .whoAreYou
        case .blinkAck: return .blinkAck
        case .requestBatteryLevel: return .requestBatteryLevel
        case .stopAllAnimations: return .stopAllAnimations
        case .rollState:
            let state = try reader.rollState("roll state")
            return .rollState(state, faceIndex: Int(try reader.u8()))
        case .batteryLevel:
            let level = try reader.percent("battery level")
            return .batteryLevel(percent: level, state: try reader.batteryState("battery state"))
        case .rssi:
            return .rssi(Int(Int8(bitPattern: try reader.u8())))
        case .requestRssi:
            let raw = try reader.u8()
            guard let mode = PixelsTelemetryMode(rawValue: raw) else {
                throw PixelsMessageError(.badField("request mode", value: Int(raw), expected: "0 (off), 1 (once) or 2 (repeatedly)"), message: id.name)
            }
            return .requestRssi(mode, minimumInterval: Int(try reader.u16()))
        case .blink:
            let count = Int(try reader.u8())
            let duration = Int(try reader.u16())
            let color = try reader.u32()
            let mask = try reader.u32()
            let fade = Int(try reader.u8())
            return .blink(PixelsBlink(count: count, duration: duration, color: color, faceMask: mask, fade: fade, loop: Int(try reader.u8())))
        case .iAmADie:
            let ledCount = Int(try reader.u8())
            let design = Int(try reader.u8())
            let dieType = PixelsDieType(rawValue: try reader.u8())
            let hash = try reader.u32()
            let pixelID = try reader.u32()
            let flash = Int(try reader.u16())
            let build = try reader.u32()
            let state = try reader.rollState("roll state")
            let face = Int(try reader.u8())
            let level = try reader.percent("battery level")
            return .iAmADie(PixelsIdentity(ledCount: ledCount, designAndColor: design, dieType: dieType, dataSetHash: hash,
                                           pixelID: pixelID, availableFlash: flash, buildTimestamp: build, rollState: state,
                                           faceIndex: face, batteryLevel: level, batteryState: try reader.batteryState("battery state")))
        }
    }

    /// Current firmware's IAmADie: after the id, six chunks, each starting with its own
    /// size (that byte included): version, die, colour name, die name, settings, status.
    /// A chunk longer than the fields read here is fine (newer firmware adds fields).
    static func decodeChunkedIdentity(_ bytes: [UInt8]) throws -> PixelsIdentity {
        let name = ID.iAmADie.name
        var chunks: [[UInt8]] = []
        var offset = 1
        let chunkNames = ["version", "die", "colour name", "die name", "settings", "status"]
        for chunkName in chunkNames {
            guard offset < bytes.count else {
                throw PixelsMessageError(.short(expected: offset + 1, got: bytes.count), message: "\(name) (\(chunkName) chunk missing)")
            }
            let size = Int(bytes[offset])
            guard size >= 1 else { throw PixelsMessageError(.badField("\(chunkName) chunk size", value: 0, expected: "at least 1"), message: name) }
            guard offset + size <= bytes.count else {
                throw PixelsMessageError(.short(expected: offset + size, got: bytes.count), message: "\(name) (\(chunkName) chunk)")
            }
            chunks.append(Array(bytes[offset..<(offset + size)]))
            offset += size
        }
        var version = ByteReader(bytes: chunks[0], message: "\(name) version chunk", offset: 3)
        var die = ByteReader(bytes: chunks[1], message: "\(name) die chunk", offset: 1)
        var settings = ByteReader(bytes: chunks[4], message: "\(name) settings chunk", offset: 1)
        var status = ByteReader(bytes: chunks[5], message: "\(name) status chunk", offset: 1)
        let build = try version.u32()
        let pixelID = try die.u32()
        _ = try die.u8()  // chip model
        let dieType = PixelsDieType(rawValue: try die.u8())
        let ledCount = Int(try die.u8())
        let design = Int(try die.u8())
        let hash = try settings.u32()
        let flash = Int(try settings.u32())
        let level = try status.percent("battery level")
        let batteryState = try status.batteryState("battery state")
        let rollState = try status.rollState("roll state")
        let face = Int(try status.u8())
        let dieName = String(decoding: chunks[3].dropFirst().prefix { $0 != 0 }, as: UTF8.self)
        return PixelsIdentity(ledCount: ledCount, designAndColor: design, dieType: dieType, dataSetHash: hash, pixelID: pixelID,
                              availableFlash: flash, buildTimestamp: build, rollState: rollState, faceIndex: face,
                              batteryLevel: level, batteryState: batteryState, name: dieName.isEmpty ? nil : dieName)
    }

    /// The bytes of this message. Fields out of their range (a count over 255, a
    /// duration over 65535 ms) are an error, never cut short.
    public func encode() throws -> [UInt8] {
        var writer = ByteWriter(message: id.name)
        writer.bytes.append(id.rawValue)
        switch self {
        case .whoAreYou, .blinkAck, .requestBatteryLevel, .stopAllAnimations: break
        case .rollState(let state, let face):
            writer.bytes.append(state.rawValue)
            try writer.u8(face, "face index")
        case .batteryLevel(let percent, let state):
            try writer.u8(percent, "battery level", upTo: 100)
            writer.bytes.append(state.rawValue)
        case .rssi(let dBm):
            guard (-128...127).contains(dBm) else {
                throw PixelsMessageError(.badField("rssi", value: dBm, expected: "-128…127 dBm"), message: id.name)
            }
            writer.bytes.append(UInt8(bitPattern: Int8(dBm)))
        case .requestRssi(let mode, let interval):
            writer.bytes.append(mode.rawValue)
            try writer.u16(interval, "minimum interval")
        case .blink(let blink):
            try writer.u8(blink.count, "count")
            try writer.u16(blink.duration, "duration")
            writer.u32(blink.color)
            writer.u32(blink.faceMask)
            try writer.u8(blink.fade, "fade")
            try writer.u8(blink.loop, "loop")
        case .iAmADie(let die):
            try writer.u8(die.ledCount, "LED count")
            try writer.u8(die.designAndColor, "design and colour")
            writer.bytes.append(die.dieType.rawValue)
            writer.u32(die.dataSetHash)
            writer.u32(die.pixelID)
            try writer.u16(die.availableFlash, "available flash")
            writer.u32(die.buildTimestamp)
            writer.bytes.append(die.rollState.rawValue)
            try writer.u8(die.faceIndex, "face index")
            try writer.u8(die.batteryLevel, "battery level", upTo: 100)
            writer.bytes.append(die.batteryState.rawValue)
        }
        return writer.bytes
    }
}

/// Little-endian reads that fail with the message's name rather than trap.
struct ByteReader {
    let bytes: [UInt8]
    let message: String
    var offset = 0

    init(bytes: [UInt8], message: String, offset: Int = 0) {
        self.bytes = bytes
        self.message = message
        self.offset = offset
    }

    mutating func u8() throws -> UInt8 {
        guard offset < bytes.count else { throw PixelsMessageError(.short(expected: offset + 1, got: bytes.count), message: message) }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func u16() throws -> UInt16 {
        let low = UInt16(try u8())
        return low | UInt16(try u8()) << 8
    }

    mutating func u32() throws -> UInt32 {
        let low = UInt32(try u16())
        return low | UInt32(try u16()) << 16
    }

    mutating func rollState(_ field: String) throws -> PixelsRollState {
        let raw = try u8()
        guard let state = PixelsRollState(rawValue: raw) else {
            throw PixelsMessageError(.badField(field, value: Int(raw), expected: "0…5 (unknown, rolled, handling, rolling, crooked, on face)"), message: message)
        }
        return state
    }

    mutating func batteryState(_ field: String) throws -> PixelsBatteryState {
        let raw = try u8()
        guard let state = PixelsBatteryState(rawValue: raw) else {
            throw PixelsMessageError(.badField(field, value: Int(raw), expected: "0…5 (ok, low, charging, done, bad charging, error)"), message: message)
        }
        return state
    }

    mutating func percent(_ field: String) throws -> Int {
        let raw = Int(try u8())
        guard raw <= 100 else { throw PixelsMessageError(.badField(field, value: raw, expected: "0…100 percent"), message: message) }
        return raw
    }
}

/// Little-endian writes with range checks.
struct ByteWriter {
    let message: String
    var bytes: [UInt8] = []

    mutating func u8(_ value: Int, _ field: String, upTo limit: Int = 255) throws {
        guard (0...limit).contains(value) else {
            throw PixelsMessageError(.badField(field, value: value, expected: "0…\(limit)"), message: message)
        }
        bytes.append(UInt8(value))
    }

    mutating func u16(_ value: Int, _ field: String) throws {
        guard (0...0xFFFF).contains(value) else {
            throw PixelsMessageError(.badField(field, value: value, expected: "0…65535"), message: message)
        }
        bytes += [UInt8(value & 0xFF), UInt8(value >> 8)]
    }

    mutating func u32(_ value: UInt32) {
        bytes += [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF), UInt8((value >> 16) & 0xFF), UInt8(value >> 24)]
    }
}
