import Foundation

/// The report's charts as inline SVG: a viewBox and no fixed size, so the page's CSS
/// scales them to the screen; system fonts only, no scripts.
enum ReportSVG {
    static let colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    static func f(_ v: Double) -> String { String(format: "%.1f", v) }

    static func open(width: Double, height: Double, label: String) -> String {
        #"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \#(Int(width)) \#(Int(height))" role="img" aria-label="\#(escape(label))" font-family="system-ui, sans-serif" font-size="16">"#
    }

    /// Horizontal bars, one per seat, 0 to 100%, with a 95% interval where sampled and a
    /// dashed line at the fair share.
    static func bars(_ items: [(name: String, value: Double, interval: (Double, Double)?)], fair: Double?) -> String {
        let left = 100.0, right = 76.0, width = 480.0, row = 34.0, top = 12.0
        let height = top + row * Double(items.count) + 28
        let plot = width - left - right
        func x(_ p: Double) -> Double { left + min(max(p, 0), 1) * plot }
        var out = [open(width: width, height: height, label: "each seat's chance of winning")]
        for (i, item) in items.enumerated() {
            let y = top + row * Double(i)
            let colour = colours[i % colours.count]
            out.append(#"<text x="\#(f(left - 8))" y="\#(f(y + 22))" text-anchor="end">\#(escape(String(item.name.prefix(11))))</text>"#)
            out.append(#"<rect x="\#(f(left))" y="\#(f(y + 5))" width="\#(f(x(item.value) - left))" height="\#(f(row - 10))" fill="\#(colour)" opacity="0.85"/>"#)
            if let (lo, hi) = item.interval {
                out.append(#"<line x1="\#(f(x(lo)))" y1="\#(f(y + row / 2))" x2="\#(f(x(hi)))" y2="\#(f(y + row / 2))" stroke="black" stroke-width="1.5"/>"#)
                for end in [lo, hi] {
                    out.append(#"<line x1="\#(f(x(end)))" y1="\#(f(y + 9))" x2="\#(f(x(end)))" y2="\#(f(y + row - 9))" stroke="black" stroke-width="1.5"/>"#)
                }
            }
            let labelAt = max(x(item.value), item.interval.map { x($0.1) } ?? 0) + 6
            out.append(#"<text x="\#(f(labelAt))" y="\#(f(y + 22))">\#(String(format: "%.1f%%", item.value * 100))</text>"#)
        }
        let axis = top + row * Double(items.count) + 4
        out.append(#"<line x1="\#(f(left))" y1="\#(f(axis))" x2="\#(f(left + plot))" y2="\#(f(axis))" stroke="dimgray"/>"#)
        for tick in stride(from: 0.0, through: 1.0, by: 0.25) {
            out.append(#"<text x="\#(f(x(tick)))" y="\#(f(axis + 16))" text-anchor="middle" fill="dimgray">\#(Int(tick * 100))%</text>"#)
        }
        if let fair {
            out.append(#"<line x1="\#(f(x(fair)))" y1="\#(f(top))" x2="\#(f(x(fair)))" y2="\#(f(axis))" stroke="dimgray" stroke-dasharray="4 4"/>"#)
        }
        out.append("</svg>")
        return out.joined(separator: "\n")
    }

    /// A histogram of a distribution over 0, 1, 2, …: bars of equal width, the x axis cut
    /// at `upTo` (the long tail left out), the tallest bar's share labelled.
    static func histogram(_ probability: [Double], xLabel: String, upTo: Int?) -> String {
        let last = min(max(upTo ?? probability.count - 1, 1), max(probability.count - 1, 1))
        // From the shortest game with any chance: the empty bars before it say nothing.
        let firstSeen = min(probability.firstIndex { $0 > 0 } ?? 0, last)
        let binWidth = max(1, (last - firstSeen + 30) / 30)
        var bins: [(from: Int, p: Double)] = []
        var start = firstSeen
        while start <= last {
            let end = min(start + binWidth, probability.count)
            bins.append((start, start < end ? probability[start..<end].reduce(0, +) : 0))
            start += binWidth
        }
        let width = 480.0, height = 250.0, left = 52.0, right = 12.0, top = 16.0, bottom = 48.0
        let plotW = width - left - right, plotH = height - top - bottom
        let peak = max(bins.map(\.p).max() ?? 0, 1e-12)
        let barW = plotW / Double(max(bins.count, 1))
        var out = [open(width: width, height: height, label: "distribution of \(xLabel) per game")]
        for (i, bin) in bins.enumerated() {
            let h = bin.p / peak * plotH
            out.append(#"<rect x="\#(f(left + Double(i) * barW + 0.5))" y="\#(f(top + plotH - h))" width="\#(f(max(barW - 1, 0.5)))" height="\#(f(h))" fill="steelblue"/>"#)
        }
        out.append(#"<line x1="\#(f(left))" y1="\#(f(top + plotH))" x2="\#(f(left + plotW))" y2="\#(f(top + plotH))" stroke="dimgray"/>"#)
        out.append(#"<line x1="\#(f(left))" y1="\#(f(top))" x2="\#(f(left))" y2="\#(f(top + plotH))" stroke="dimgray"/>"#)
        out.append(#"<text x="\#(f(left - 6))" y="\#(f(top + 10))" text-anchor="end" fill="dimgray">\#(String(format: "%.0f%%", peak * 100))</text>"#)
        out.append(#"<text x="\#(f(left - 6))" y="\#(f(top + plotH))" text-anchor="end" fill="dimgray">0</text>"#)
        let every = max(1, (bins.count + 5) / 6)
        for (i, bin) in bins.enumerated() where i % every == 0 {
            out.append(#"<text x="\#(f(left + (Double(i) + 0.5) * barW))" y="\#(f(top + plotH + 16))" text-anchor="middle" fill="dimgray">\#(bin.from)</text>"#)
        }
        out.append(#"<text x="\#(f(left + plotW / 2))" y="\#(f(height - 6))" text-anchor="middle">\#(escape(xLabel)) per game</text>"#)
        out.append("</svg>")
        return out.joined(separator: "\n")
    }

    /// A chart `Sweep.svg` drew as a file, made fit to sit inside the page: no XML
    /// declaration, no fixed width and height (its viewBox stays).
    static func inline(_ svg: String) -> String {
        var lines = svg.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.first?.hasPrefix("<?xml") == true { lines.removeFirst() }
        if let i = lines.firstIndex(where: { $0.hasPrefix("<svg") }) {
            lines[i] = lines[i].replacingOccurrences(of: #" width="640" height="400""#, with: "")
        }
        return lines.joined(separator: "\n")
    }
}
