/// The messages DiceHost exchanges with a Pixels die, as published by GameWithPixels
/// ("Pixels Communications Protocol", and the firmware's `bluetooth_messages.h`): the
/// first byte is the message id, the rest its fields in order, little-endian, unpadded.
///
/// The host writes `whoAreYou`, `blink`, `stopAllAnimations`, `requestBatteryLevel` and
/// `requestRssi` to the write characteristic; the die notifies `iAmADie`, `rollState`,
/// `blinkAck`, `batteryLevel` and `rssi`. `decode` turns one notification into a
/// message or a `PixelsMessageError` naming what was wrong; `encode` gives the bytes.
///
///     try PixelsMessage.decode([3, 1, 4])   // .rollState(.rolled, faceIndex: 4): face 5 up
///     PixelsMessage.whoAreYou.encode()      // [1]
public enum PixelsMessage: Equatable, Sendable {
    /// Host → die: "identify yourself" (answered by `iAmADie`).
    case whoAreYou
    /// Die → host: what the die is (type, LEDs, id, firmware) and its state now.
    case iAmADie(PixelsIdentity)
    /// Die → host: the roll state changed, with the face up (an index from 0).
    case rollState(PixelsRollState, faceIndex: Int)
    /// Host → die: flash some faces.
    case blink(PixelsBlink)
    /// Die → host: a `blink` was received.
    case blinkAck
    /// Host → die: stop every animation playing (all LEDs off).
    case stopAllAnimations
    /// Host → die: send `batteryLevel` now.
    case requestBatteryLevel
    /// Die → host: battery level (percent) and state; also sent on its own on a change.
    case batteryLevel(percent: Int, state: PixelsBatteryState)
    /// Host → die: report the signal strength (`rssi`): off, once, or repeatedly no more
    /// often than every `minimumInterval` ms.
    case requestRssi(PixelsTelemetryMode, minimumInterval: Int)
    /// Die → host: signal strength at the die, in dBm.
    case rssi(Int)

    /// The message ids (the first byte).
    public enum ID: UInt8, Sendable, CaseIterable {
        case whoAreYou = 1, iAmADie = 2, rollState = 3, blink = 29, blinkAck = 30
        case requestBatteryLevel = 33, batteryLevel = 34, requestRssi = 35, rssi = 36
        case stopAllAnimations = 59

        /// The name the protocol gives the message.
        public var name: String {
            switch self {
            case .whoAreYou: return "WhoAreYou"
            case .iAmADie: return "IAmADie"
            case .rollState: return "RollState"
            case .blink: return "Blink"
            case .blinkAck: return "BlinkAck"
            case .requestBatteryLevel: return "RequestBatteryLevel"
            case .batteryLevel: return "BatteryLevel"
            case .requestRssi: return "RequestRssi"
            case .rssi: return "Rssi"
            case .stopAllAnimations: return "StopAllAnimations"
            }
        }

        /// The message's size in bytes, id included (IAmADie's is the legacy layout's;
        /// current firmware sends a longer, chunked one, which `decode` also reads).
        public var size: Int {
            switch self {
            case .whoAreYou, .blinkAck, .requestBatteryLevel, .stopAllAnimations: return 1
            case .rssi: return 2
            case .rollState, .batteryLevel: return 3
            case .requestRssi: return 4
            case .blink: return 14
            case .iAmADie: return 22
            }
        }
    }

    /// The Bluetooth LE service and characteristics of a Pixels die.
    public enum Bluetooth {
        public static let service = "6e400001-b5a3-f393-e0a9-e50e24dcca9e"
        /// The die notifies its messages here (subscribe to it).
        public static let notifyCharacteristic = "6e400001-b5a3-f393-e0a9-e50e24dcca9e"
        /// The host writes its messages here.
        public static let writeCharacteristic = "6e400002-b5a3-f393-e0a9-e50e24dcca9e"
    }

    public var id: ID {
        switch self {
        case .whoAreYou: return .whoAreYou
        case .iAmADie: return .iAmADie
        case .rollState: return .rollState
        case .blink: return .blink
        case .blinkAck: return .blinkAck
        case .stopAllAnimations: return .stopAllAnimations
        case .requestBatteryLevel: return .requestBatteryLevel
        case .batteryLevel: return .batteryLevel
        case .requestRssi: return .requestRssi
        case .rssi: return .rssi
        }
    }
}

/// A roll state as a Pixels die reports it (firmware values).
public enum PixelsRollState: UInt8, Sendable, CaseIterable {
    case unknown = 0
    /// Came to rest on a face after a proper roll.
    case rolled = 1
    case handling = 2
    case rolling = 3
    /// Came to rest with no face clearly up.
    case crooked = 4
    /// Resting on a face, not after a roll (put down, nudged).
    case onFace = 5
}

/// A Pixels battery state (firmware values).
public enum PixelsBatteryState: UInt8, Sendable, CaseIterable {
    case ok = 0, low = 1, charging = 2, done = 3, badCharging = 4, error = 5

    /// On the charger (charging or full).
    public var isCharging: Bool { self == .charging || self == .done }
}

/// How often a die reports a value the host asked for.
public enum PixelsTelemetryMode: UInt8, Sendable, CaseIterable {
    case off = 0, once = 1, repeatedly = 2
}

/// A Pixels die type (firmware values), with its number of faces.
public struct PixelsDieType: Equatable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let unknown = PixelsDieType(rawValue: 0)
    public static let d4 = PixelsDieType(rawValue: 1)
    public static let d6 = PixelsDieType(rawValue: 2)
    public static let d8 = PixelsDieType(rawValue: 3)
    public static let d10 = PixelsDieType(rawValue: 4)
    public static let d00 = PixelsDieType(rawValue: 5)
    public static let d12 = PixelsDieType(rawValue: 6)
    public static let d20 = PixelsDieType(rawValue: 7)
    public static let d6Pipped = PixelsDieType(rawValue: 8)
    public static let d6Fudge = PixelsDieType(rawValue: 9)

    /// Faces numbered 1…N (a fudge die's three symbols are not; an unknown type has none).
    public var numberedFaces: Int? {
        switch rawValue {
        case 1: return 4
        case 2, 8: return 6
        case 3: return 8
        case 4, 5: return 10
        case 6: return 12
        case 7: return 20
        default: return nil
        }
    }

    public var description: String {
        switch rawValue {
        case 0: return "die of unknown type"
        case 5: return "d00"
        case 8: return "pipped d6"
        case 9: return "fudge die"
        default: return numberedFaces.map { "d\($0)" } ?? "die of type \(rawValue)"
        }
    }
}

/// What `IAmADie` says. The legacy layout (22 bytes) is the one the protocol document
/// describes and the one `encode` writes; current firmware sends the same facts in
/// size-prefixed chunks (version, die, colour name, die name, settings, status), which
/// `decode` reads into the same fields (`name` only comes that way).
public struct PixelsIdentity: Equatable, Sendable {
    public var ledCount: Int
    public var designAndColor: Int
    public var dieType: PixelsDieType
    public var dataSetHash: UInt32
    public var pixelID: UInt32
    public var availableFlash: Int
    /// Firmware build time, seconds since 1970.
    public var buildTimestamp: UInt32
    public var rollState: PixelsRollState
    public var faceIndex: Int
    public var batteryLevel: Int
    public var batteryState: PixelsBatteryState
    /// The name the owner gave the die (chunked layout only).
    public var name: String?

    public init(ledCount: Int, designAndColor: Int = 0, dieType: PixelsDieType, dataSetHash: UInt32 = 0,
                pixelID: UInt32, availableFlash: Int = 0, buildTimestamp: UInt32 = 0,
                rollState: PixelsRollState = .onFace, faceIndex: Int = 0,
                batteryLevel: Int, batteryState: PixelsBatteryState = .ok, name: String? = nil) {
        self.ledCount = ledCount
        self.designAndColor = designAndColor
        self.dieType = dieType
        self.dataSetHash = dataSetHash
        self.pixelID = pixelID
        self.availableFlash = availableFlash
        self.buildTimestamp = buildTimestamp
        self.rollState = rollState
        self.faceIndex = faceIndex
        self.batteryLevel = batteryLevel
        self.batteryState = batteryState
        self.name = name
    }

    /// The faces the die is numbered 1…N with: its type's, or for a die that does not
    /// say (type 0, older firmware), guessed from its LEDs (one per face on a d4…d20).
    public var faces: Int? {
        if let faces = dieType.numberedFaces { return faces }
        guard dieType == .unknown else { return nil }
        return [4, 6, 8, 10, 12, 20].contains(ledCount) ? ledCount : nil
    }
}

/// The fields of `Blink`. The die flashes `count` times, evenly over `duration` ms, each
/// flash lit for half its period (less the fades); `fade` 0 is sharp, 255 all fade.
public struct PixelsBlink: Equatable, Sendable {
    public var count: Int
    /// Milliseconds, 0…65535.
    public var duration: Int
    /// 0xAARRGGBB (the die ignores alpha).
    public var color: UInt32
    /// Bit n lights the face with index n (face n + 1).
    public var faceMask: UInt32
    public var fade: Int
    /// The protocol document's "loop": 1 repeats the animation until stopped, 0 plays it
    /// once. (Newer firmware reads this byte as a loop count.)
    public var loop: Int

    public init(count: Int, duration: Int, color: UInt32, faceMask: UInt32, fade: Int = 0, loop: Int = 0) {
        self.count = count
        self.duration = duration
        self.color = color
        self.faceMask = faceMask
        self.fade = fade
        self.loop = loop
    }
}
