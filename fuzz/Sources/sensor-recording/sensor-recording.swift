// Fuzzes what `sensor KIND FILE` reads: a recorded sensor stream (CSV or JSON Lines),
// parsed by `SensorRecording.parse` for the sensor the first byte picks. Invariants:
// - the recording parses the same with CRLF line ends as with LF;
// - what parses is what a game takes: the sensor's number of finite values per sample,
//   times from 0 in order, at most `maxSamples`.
import DiceHost
import Foundation
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let kinds = SensorKind.allCases
    let sensor = kinds[Int(data[0]) % kinds.count]
    let text = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
    let parsed = Result { try SensorRecording.parse(text, sensor: sensor) }
    let crlf = Result { try SensorRecording.parse(text.replacingOccurrences(of: "\n", with: "\r\n"), sensor: sensor) }
    switch (parsed, crlf) {
    case (.success(let a), .success(let b)):
        fuzzCheck(a.map(\.time) == b.map(\.time) && a.map(\.values) == b.map(\.values), "the recording parses differently with CRLF line ends")
    case (.failure(let a), .failure(let b)):
        fuzzCheck("\(a)" == "\(b)", "the recording fails differently with CRLF line ends: \(a) / \(b)")
    default:
        fuzzCheck(false, "the recording parses with one kind of line end only")
    }
    guard case .success(let samples) = parsed else { return 0 }
    fuzzCheck(!samples.isEmpty && samples.count <= SensorRecording.maxSamples, "\(samples.count) samples")
    var last = 0
    for sample in samples {
        fuzzCheck(sample.sensor == sensor, "a \(sample.sensor) sample in a \(sensor) recording")
        fuzzCheck(sample.values.count == sensor.valueCount && sample.values.allSatisfy(\.isFinite), "bad values \(sample.values)")
        fuzzCheck(sample.time >= last, "times out of order: \(sample.time) after \(last)")
        last = sample.time
    }
    return 0
}
