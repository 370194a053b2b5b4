---@meta
-- Type stubs of the DiceHost scripting API for lua-language-server.

---@class Player
---@field name string
---@field seat integer
---@field eliminated boolean
---@field last_roll Roll|nil
---@field dice integer|string|nil the dice this player rolls (a count of the declared dice, or notation); nil: the declared dice

--- A roll table is the host's: two per player, reused in turn (a kept roll is
--- overwritten two rolls later). Keep numbers, not rolls; see "Fast rules".
---@class Roll
---@field values integer[]
---@field value integer
---@field total integer
---@field flag "ok"|"tilt"|"too_short"
---@field ok boolean
---@field doubles boolean
---@field previous Roll|nil
---@field kept integer[]|nil positions kept from the last roll (`roll keep 1 3`), else nil

---@class Game
---@field players Player[]
---@field current Player
---@field state table
---@field params table
---@field now integer
local Game = {}
---@param fmt string
function Game:say(fmt, ...) end
---Text for some players only (the REPL marks it "[to Ann] say …"; others never receive it).
---@param to Player|Player[]
---@param fmt string
function Game:tell(to, fmt, ...) end
---@param name string
---@param data any a table prints its contents in pairs order: {a=1, hand={A♠, 10♥}}
---@param to Player|Player[]|nil only these players receive it (default: everyone)
function Game:emit(name, data, to) end
---Shows a secret roll to everyone: "reveal Ann ⚂ ⚄ = 7".
---@param p Player
---@param r Roll|integer[]|nil the values (default: p.last_roll)
function Game:reveal(p, r) end
---Sets g.current at once; the new player's turn hook runs after the current hook returns.
---@param p Player|nil
function Game:next_turn(p) end
---@param p Player
function Game:win(p) end
---Takes p out; the last player left wins. In a one-player game, the game is lost.
---@param p Player
function Game:lose(p) end
function Game:draw() end
---@param p Player
function Game:eliminate(p) end
---@param metric string
---@param value number a finite number (NaN and infinities are errors)
function Game:record(metric, value) end
---@param name string
---@return Player|nil
function Game:player(name) end
---@return boolean
function Game:is_over() end

---@class RuleTable
---@field name string
---@field players integer[]|integer
---@field dice string|false false: a game without dice (front ends draw no dice and no Roll button)
---@field unordered_dice boolean|nil true: the order of a roll's values never matters to the rules (e.g. they sort them); `odds` and `solve` follow each set of values once (252 for 5d6, not 7,776), and `solve` plays once the keeps of a position that end with the same values (where a keep leads must not depend on `r.kept`)
---@field statistics string[]|nil fields of g.state and of each player kept only for statistics (a roll counter for g:record): `solve` keeps them out of positions (checked on sampled games), e.g. {"rolls"}
---@field keep_dice boolean|nil true: players keep dice of their last roll and roll the others (`roll keep 1 3`); `dicehost solve` tries keeping each subset
---@field turn_seconds integer|nil served games: seconds a move may take before the rules' bot plays it, 0 (no clock) or 10 to 3600; default 60
---@field skip_absent boolean|nil served games without a bot: true lets the room pass an absent or idle player's turn on (as g:next_turn() would) instead of rolling for them
---@field secret_rolls boolean|nil true: only the roller sees a roll's values; the others see that a roll happened (without a view hook the host's view hides the others' `last_roll` as hidden dice)
---@field params table
---@field param_info table<string, {label: string|nil, description: string|nil, min: number|nil, max: number|nil, step: number|nil, choices: (string|number)[]|nil, bot: boolean|nil}>|nil how a lobby offers each param: a label, a line under it, a slider (min, max, step), a menu (choices); bot = true hides a bots' knob, e.g. { target = {label = "Target score", min = 10, max = 100} }
---@field designer_actions string[]|nil actions for the designer (a debug print), never offered to players as buttons, e.g. {"show"}
---@field actions table<string, fun(g: Game, p: Player, ...: integer|number|boolean|string)> arguments typed as they read: 25, 2.5, true, "word"
---@field choices table<string, (string|number|boolean)[]|(string|number|boolean)[][]|fun(g: Game, p: Player): table>|nil the legal moves of each action (solve, odds --vs solver, tab completion and fuzzing read them): values, argument tuples, or a function of the position, e.g. { ante = {5, 10, 25}, bid = {{1, 2}, {1, 3}} }
---@field view_is_complete boolean|nil true: the view holds all a player needs to decide, so best play with secrets takes each view as an information set (not the view and every event since the start)
---@field anytime string[]|nil inputs ("roll" or action names) any player may make out of turn, e.g. {"snap"}
---@field while_out string[]|nil inputs ("roll" or action names) a player who is out may still make, e.g. {"show"}
---@field setup fun(g: Game)|nil
---@field turn fun(g: Game, p: Player)|nil
---@field roll fun(g: Game, p: Player, r: Roll)
---@field bot fun(g: Game|table, p: Player): string|table|nil "roll", an action, {"ante", 25}, {"roll", keep = {1, 3}}, {"wait", 500}; with a view hook its first argument is view(g, p), not g
---@field view fun(g: Game, viewer: Player|nil): any what viewer (nil: a spectator) may see; without it everything is visible; declared `view(g)` (no viewer) it is the same for every seat and a server makes it once per input
---@field table fun(v: any, t: TableFacts): TableDrawing|nil what the browser table draws for a seat, from its view v (never g) and t's facts (docs/scripting.md, "The table")
---@field migrate fun(g: Game)|nil
---@field status fun(g: Game): string|nil
---@field on_device fun(g: Game, event: "connected"|"disconnected"|"connection_failed"|"authorisation_failed"|"battery", value: integer|nil)|nil
---@field invariant fun(g: Game)|nil raises when the game is in a state it must never reach (e.g. chips are not conserved); `dicehost fuzz` and rule tests with `# check: invariant` call it after every input; must not change g

---@class Rules
---@overload fun(declaration: table): RuleTable
rules = {}
---@param base RuleTable
---@param changes table
---@return RuleTable
function rules.extend(base, changes) end

dice = {}
---@param notation string NdS with N 1..100, S 2..1000, e.g. "2d6", "4d6kh3", "1d6!+2"
---@return Roll
function dice.roll(notation) end
---@param n integer
---@return string
function dice.glyph(n) end
---The exact distribution of a notation: total -> probability (exploding dice followed
---until less than 1e-12 is left out). Refused beyond about 2,000,000 steps of work.
---@param notation string e.g. "2d6", "4d6kh3", "2d20kl1", "1d6!+2"
---@return table<integer, number>
function dice.distribution(notation) end

---@alias Colour string|integer[]
led = {}
led.ALL = 63
---@param n integer
---@return integer
function led.face(n) end
---@return integer
function led.faces(...) end
---@param mask integer
---@param colour Colour
function led.set(mask, colour) end
---@param mask integer|nil
function led.off(mask) end
---@param mask integer
---@param colour Colour
---A command on a face blinking at a higher priority is dropped there, not queued.
---After the blink the face shows its steady colour again (the last set, off or fade).
---@param options {on: integer?, cycle: integer?, count: integer?, priority: integer?}|nil on, cycle: 0..60000 ms; count: 1..10000; priority: 0..100
function led.blink(mask, colour, options) end
---@param mask integer
---@param colour Colour
---@param ms integer|nil 0..60000 ms (default 500)
function led.fade(mask, colour, ms) end

---@class TimerHandle
local TimerHandle = {}
function TimerHandle:cancel() end
---The milliseconds until the timer fires next; nil once it fired or was cancelled.
---@return integer|nil
function TimerHandle:left() end

---What a `table(v, t)` hook knows besides the view: public facts and what the seat was told.
---@class TableFacts
---@field you string|nil the seat's player name; nil for a spectator
---@field players string[] every player's name, in seat order
---@field current string|nil whose turn it is (nil when none or the game is over)
---@field over boolean
---@field winner string|nil
---@field loser string|nil a lone player who lost
---@field draw boolean|nil
---@field now integer the game clock, ms
---@field params table the game's params
---@field said string[] the last 8 lines said to this seat, oldest first
---@field shown table<string, integer[]> dice shown to everyone since the last roll, by player name

---What a `table(v, t)` hook returns; every field optional.
---@class TableDrawing
---@field headline string|nil
---@field result string|nil the game's end in this seat's words ("You finish $20 down")
---@field last string|nil the last thing that happened
---@field turn string|nil
---@field roll string|boolean|nil the Roll button's label, or false: no roll is taken now
---@field countdown {text: string, ms: integer}|nil
---@field track {target: integer, label: string|nil, marks: {name: string, at: integer}[]}|nil
---@field pot number|string|{label: string|nil, value: number|string}|nil
---@field balances {name: string, value: number|string, note: string|nil}[]|nil
---@field cups {name: string, dice: Roll|integer[]|Hidden, note: string|nil, counted: integer[]|nil, wild: integer[]|nil}[]|nil counted, wild: the faces lit at a reveal (the wild ones marked)
---@field cards {name: string, open: Card|Card[]|nil, facedown: integer|Hidden|nil, note: string|nil}[]|nil

timer = {}
---@param ms integer 0..86400000 (24 h of game time); at most 1000 timers pending
---@param fn fun(g: Game)
---@return TimerHandle
function timer.after(ms, fn) end
---@param ms integer 1..86400000 (24 h of game time); at most 1000 timers pending
---@param fn fun(g: Game)
---@return TimerHandle
function timer.every(ms, fn) end

---@class SensorSubscription
---@field sensor string
---@field rate integer
local SensorSubscription = {}
function SensorSubscription:cancel() end

sensor = {}
---@alias SensorKind "accelerometer"|"magnetometer"|"orientation"|"touch"|"proximity"|"temperature"
---@param kind SensorKind
---@param rate integer 1..1000 Hz on the game clock; at most 16 subscriptions
---@param fn fun(g: Game, ...: number) accelerometer/magnetometer/orientation: x, y, z; the others: one value
---@return SensorSubscription
function sensor.every(kind, rate, fn) end

device = {}
--- Take the next roll from the die in this turn too (roll updates stay on).
function device.await_roll() end
---@return boolean
function device.connected() end
---@return integer|nil percent
function device.battery() end

---@class Card
---@field rank integer
---@field suit string

---@class Hidden
---@field hidden true
---@field what string
---@field count integer

---A hidden thing in a view, with what is public about it: hidden("cards", 12) is a
---face-down stack, hidden("dice", 5) a cup. Front ends draw backs with the count.
---@param what string
---@param count integer
---@return Hidden
function hidden(what, count) end

cards = {}
---@return Card[]
function cards.deck() end
---@generic T
---@param t T[]
---@return T[]
function cards.shuffle(t) end
