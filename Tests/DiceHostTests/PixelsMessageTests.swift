import Testing
@testable import DiceHost

/// Byte vectors written by hand from the Pixels Communications Protocol (GameWithPixels)
/// and the firmware's `bluetooth_messages.h`: id first, fields in order, little-endian.
/// Each is checked both ways: the bytes decode to the message and the message encodes
/// to the bytes.
struct PixelsMessageTests {
    static let legacyIdentity = PixelsIdentity(
        ledCount: 6, designAndColor: 0, dieType: .d6, dataSetHash: 0x1234_5678, pixelID: 0xDEAD_BEEF,
        availableFlash: 4096, buildTimestamp: 1_700_000_000, rollState: .onFace, faceIndex: 2,
        batteryLevel: 87, batteryState: .ok)

    static let vectors: [(String, [UInt8], PixelsMessage)] = [
        ("WhoAreYou", [0x01], .whoAreYou),
        ("IAmADie, legacy 22 bytes",
         [0x02, 6, 0, 2, 0x78, 0x56, 0x34, 0x12, 0xEF, 0xBE, 0xAD, 0xDE, 0x00, 0x10, 0x00, 0xF1, 0x53, 0x65, 5, 2, 87, 0],
         .iAmADie(legacyIdentity)),
        ("RollState rolled, face index 4", [0x03, 0x01, 0x04], .rollState(.rolled, faceIndex: 4)),
        ("RollState handling", [0x03, 0x02, 0x00], .rollState(.handling, faceIndex: 0)),
        ("RollState rolling", [0x03, 0x03, 0x05], .rollState(.rolling, faceIndex: 5)),
        ("RollState crooked", [0x03, 0x04, 0x01], .rollState(.crooked, faceIndex: 1)),
        ("RollState on face", [0x03, 0x05, 0x03], .rollState(.onFace, faceIndex: 3)),
        ("Blink: 5 times over 750 ms, green, face 4",
         [0x1D, 5, 0xEE, 0x02, 0x00, 0xFF, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0, 0],
         .blink(PixelsBlink(count: 5, duration: 750, color: 0x0000_FF00, faceMask: 0x08))),
        ("Blink: all six faces red, faded, looping",
         [0x1D, 1, 0x10, 0x27, 0x00, 0x00, 0xFF, 0x00, 0x3F, 0x00, 0x00, 0x00, 255, 1],
         .blink(PixelsBlink(count: 1, duration: 10_000, color: 0x00FF_0000, faceMask: 63, fade: 255, loop: 1))),
        ("BlinkAck", [0x1E], .blinkAck),
        ("RequestBatteryLevel", [0x21], .requestBatteryLevel),
        ("BatteryLevel 87%, ok", [0x22, 87, 0], .batteryLevel(percent: 87, state: .ok)),
        ("BatteryLevel 9%, charging", [0x22, 9, 2], .batteryLevel(percent: 9, state: .charging)),
        ("RequestRssi once", [0x23, 1, 0x00, 0x00], .requestRssi(.once, minimumInterval: 0)),
        ("RequestRssi every 5 s", [0x23, 2, 0x88, 0x13], .requestRssi(.repeatedly, minimumInterval: 5000)),
        ("Rssi -58 dBm", [0x24, 0xC6], .rssi(-58)),
        ("StopAllAnimations", [0x3B], .stopAllAnimations),
    ]

    @Test func everyVectorDecodesToItsMessage() throws {
        for (name, bytes, message) in Self.vectors {
            #expect(try PixelsMessage.decode(bytes) == message, "\(name)")
        }
    }

    @Test func everyMessageEncodesToItsVector() throws {
        for (name, bytes, message) in Self.vectors {
            #expect(try message.encode() == bytes, "\(name)")
        }
    }

    @Test func everyMessageIdTheHostUsesHasAVector() {
        let covered = Set(Self.vectors.map { $0.2.id })
        #expect(covered == Set(PixelsMessage.ID.allCases))
        for id in PixelsMessage.ID.allCases {
            #expect(Self.vectors.contains { $0.2.id == id && $0.1.count == id.size }, "\(id.name) is \(id.size) bytes")
        }
    }

    /// Current firmware's chunked IAmADie: version (15 bytes), die (10), colour name,
    /// die name, settings (13), status (5), each led by its size.
    @Test func chunkedIdentityDecodes() throws {
        let bytes: [UInt8] = [0x02,
            15, 0x10, 0x02, 0x00, 0xF1, 0x53, 0x65, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01,
            10, 0xEF, 0xBE, 0xAD, 0xDE, 1, 2, 6, 3, 0,
            1,
            6, 0x41, 0x73, 0x74, 0x72, 0x6F,
            13, 0x78, 0x56, 0x34, 0x12, 0x00, 0x10, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00,
            5, 42, 2, 4, 0]
        let expected = PixelsIdentity(ledCount: 6, designAndColor: 3, dieType: .d6, dataSetHash: 0x1234_5678, pixelID: 0xDEAD_BEEF,
                                      availableFlash: 4096, buildTimestamp: 1_700_000_000, rollState: .crooked, faceIndex: 0,
                                      batteryLevel: 42, batteryState: .charging, name: "Astro")
        #expect(try PixelsMessage.decode(bytes) == .iAmADie(expected))
    }

    @Test func chunkedIdentityCutShortNamesTheChunk() {
        let bytes: [UInt8] = [0x02, 15, 0x10, 0x02, 0x00, 0xF1, 0x53, 0x65, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01, 10, 0xEF]
        #expect(throws: PixelsMessageError(.short(expected: 26, got: 18), message: "IAmADie (die chunk)")) {
            try PixelsMessage.decode(bytes)
        }
    }

    @Test func badBytesAreClearErrors() {
        let cases: [([UInt8], PixelsMessageError, String)] = [
            ([], PixelsMessageError(.empty), "Pixels message: no bytes (expected at least the message id)"),
            ([99], PixelsMessageError(.unknownID(99)), "Pixels message: unknown message id 99 (the host reads ids 2, 3, 30, 34, 36)"),
            ([0x03, 0x01], PixelsMessageError(.short(expected: 3, got: 2), message: "RollState"),
             "Pixels message RollState: 2 bytes, too short (expected 3)"),
            ([0x03, 0x01, 0x04, 0x00], PixelsMessageError(.long(expected: 3, got: 4), message: "RollState"),
             "Pixels message RollState: 4 bytes, too long (expected 3)"),
            ([0x1E, 0x00], PixelsMessageError(.long(expected: 1, got: 2), message: "BlinkAck"),
             "Pixels message BlinkAck: 2 bytes, too long (expected 1)"),
            ([0x22, 87], PixelsMessageError(.short(expected: 3, got: 2), message: "BatteryLevel"),
             "Pixels message BatteryLevel: 2 bytes, too short (expected 3)"),
            ([0x03, 9, 0], PixelsMessageError(.badField("roll state", value: 9, expected: "0…5 (unknown, rolled, handling, rolling, crooked, on face)"), message: "RollState"),
             "Pixels message RollState: roll state 9, expected 0…5 (unknown, rolled, handling, rolling, crooked, on face)"),
            ([0x22, 101, 0], PixelsMessageError(.badField("battery level", value: 101, expected: "0…100 percent"), message: "BatteryLevel"),
             "Pixels message BatteryLevel: battery level 101, expected 0…100 percent"),
            ([0x22, 50, 6], PixelsMessageError(.badField("battery state", value: 6, expected: "0…5 (ok, low, charging, done, bad charging, error)"), message: "BatteryLevel"),
             "Pixels message BatteryLevel: battery state 6, expected 0…5 (ok, low, charging, done, bad charging, error)"),
            ([0x24], PixelsMessageError(.short(expected: 2, got: 1), message: "Rssi"), "Pixels message Rssi: 1 byte, too short (expected 2)"),
        ]
        for (bytes, error, text) in cases {
            #expect(throws: error, "\(bytes)") { try PixelsMessage.decode(bytes) }
            #expect(error.description == text)
        }
    }

    @Test func fieldsOutOfRangeAreNotEncoded() {
        #expect(throws: PixelsMessageError(.badField("count", value: 300, expected: "0…255"), message: "Blink")) {
            try PixelsMessage.blink(PixelsBlink(count: 300, duration: 100, color: 0, faceMask: 1)).encode()
        }
        #expect(throws: PixelsMessageError(.badField("duration", value: 70_000, expected: "0…65535"), message: "Blink")) {
            try PixelsMessage.blink(PixelsBlink(count: 1, duration: 70_000, color: 0, faceMask: 1)).encode()
        }
        #expect(throws: PixelsMessageError(.badField("rssi", value: -200, expected: "-128…127 dBm"), message: "Rssi")) {
            try PixelsMessage.rssi(-200).encode()
        }
    }

    @Test func dieTypesKnowTheirFaces() {
        #expect(PixelsDieType.d6.numberedFaces == 6)
        #expect(PixelsDieType.d6Pipped.numberedFaces == 6)
        #expect(PixelsDieType.d6Fudge.numberedFaces == nil)
        #expect(PixelsDieType.d20.numberedFaces == 20)
        var identity = Self.legacyIdentity
        identity.dieType = .unknown
        #expect(identity.faces == 6)  // older firmware: one LED per face
        identity.ledCount = 7
        #expect(identity.faces == nil)
    }

    /// Any bytes at all decode to a message or a clear error, never a trap; and whatever
    /// decodes at its fixed size encodes back to the same bytes.
    @Test func anyBytesDecodeOrFailCleanlyAndRoundTrip() throws {
        var inputs: [[UInt8]] = (0...255).map { [UInt8($0)] }
        for a in 0...255 { for b in 0...255 { inputs.append([UInt8(a), UInt8(b)]) } }
        for id: UInt8 in [3, 34] { for a in 0...255 { for b in 0...255 { inputs.append([id, UInt8(a), UInt8(b)]) } } }
        var state: UInt64 = 7
        for _ in 0..<20_000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let length = Int(state >> 59) + 1 + Int(state >> 61)
            var bytes: [UInt8] = [[1, 2, 3, 29, 30, 33, 34, 35, 36, 59][Int(state >> 40) % 10]]
            for _ in 1..<length {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                bytes.append(UInt8(truncatingIfNeeded: state >> 33))
            }
            inputs.append(bytes)
        }
        var decoded = 0
        for bytes in inputs {
            guard let message = try? PixelsMessage.decode(bytes) else { continue }
            decoded += 1
            if bytes.count == message.id.size { #expect(try message.encode() == bytes, "\(bytes)") }
        }
        #expect(decoded > 1000)
    }
}
