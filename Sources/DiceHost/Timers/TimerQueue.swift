/// The game's pending timers, earliest first (equal deadlines in the order they were
/// set): a binary heap, so a tick that fires many timers costs O(log n) per firing
/// instead of a scan of them all.
struct TimerQueue {
    private var heap: [Game.ScheduledTimer] = []

    var count: Int { heap.count }
    var isEmpty: Bool { heap.isEmpty }
    /// Every pending timer, in no particular order (exact odds ranks them itself).
    var pending: [Game.ScheduledTimer] { heap }

    /// The timer that fires next.
    var first: Game.ScheduledTimer? { heap.first }

    mutating func append(_ timer: Game.ScheduledTimer) {
        heap.append(timer)
        siftUp(heap.count - 1)
    }

    /// Removes and returns the timer that fires next.
    mutating func popFirst() -> Game.ScheduledTimer? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let first = heap.removeLast()
        if !heap.isEmpty { siftDown(0) }
        return first
    }

    /// Cancels timers (rare: a linear pass, then the heap is rebuilt).
    mutating func removeAll(where shouldRemove: (Game.ScheduledTimer) throws -> Bool) rethrows {
        let before = heap.count
        try heap.removeAll(where: shouldRemove)
        guard heap.count != before else { return }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }

    private static func precedes(_ a: Game.ScheduledTimer, _ b: Game.ScheduledTimer) -> Bool {
        (a.due, a.id) < (b.due, b.id)
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.precedes(heap[child], heap[parent]) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, Self.precedes(heap[left], heap[smallest]) { smallest = left }
            if right < heap.count, Self.precedes(heap[right], heap[smallest]) { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
