// Fuzzes dice notation: `DiceNotation(text)`, then `roll`/`kept`/`total` on what parses,
// with extreme generators (always 1, always the top face, random).
import DiceHost
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let notation = try? DiceNotation(text) else { return 0 }
    fuzzCheck((1...100).contains(notation.count), "count \(notation.count) for '\(text)'")
    fuzzCheck((2...1000).contains(notation.sides), "sides \(notation.sides) for '\(text)'")
    fuzzCheck(notation.text == text, "text changed")
    var state: UInt64 = UInt64(size) &* 0x9E37_79B9_7F4A_7C15
    let generators: [(ClosedRange<Int>) -> Int] = [
        { $0.lowerBound },
        { $0.upperBound },
        { range in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return range.lowerBound + Int((state >> 33) % UInt64(range.count))
        },
    ]
    for random in generators {
        let values = notation.roll(random)
        fuzzCheck(values.count == notation.count, "roll gave \(values.count) values for \(notation.count) dice")
        for v in values {
            fuzzCheck(v >= 1 && v <= notation.sides * 101, "die value \(v) out of range for '\(text)'")
        }
        let kept = notation.kept(values)
        switch notation.keep {
        case .all: fuzzCheck(kept.count == values.count, "kept all")
        case .highest(let k), .lowest(let k): fuzzCheck(kept.count == k && k >= 1 && k <= notation.count, "kept \(kept.count) of \(k)")
        }
        _ = notation.total(of: values)
    }
    return 0
}
