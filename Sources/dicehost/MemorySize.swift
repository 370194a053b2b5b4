/// A memory size as a user writes it: 8G, 500M, 64K or bytes.
enum MemorySize {
    static func parse(_ text: String, option: String) throws -> Int {
        let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        var digits = Substring(text.uppercased())
        if digits.hasSuffix("IB") { digits = digits.dropLast(2) } else if digits.hasSuffix("B") { digits = digits.dropLast() }
        var unit = 1
        if let last = digits.last, let size = units[last] { unit = size; digits = digits.dropLast() }
        guard let number = Int(digits), number >= 1 else {
            throw GameOptions.UsageError(description: "\(option) takes a size such as 8G, 500M or 64K, got '\(text)'")
        }
        let (bytes, overflow) = number.multipliedReportingOverflow(by: unit)
        guard !overflow, bytes >= 16 << 20, bytes <= 1 << 50 else {
            throw GameOptions.UsageError(description: "\(option) must be between 16M and 1024T, got '\(text)'")
        }
        return bytes
    }
}
