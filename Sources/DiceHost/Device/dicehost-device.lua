local host = ...
local setmetatable, error, type = setmetatable, error, type
local Subscription = {}
Subscription.__index = Subscription
function Subscription:cancel() host.unsubscribe(self.id) end
local sensor = {
  every = function(kind, rate, fn)
    return setmetatable({id = host.subscribe(kind, rate, fn), sensor = kind, rate = rate}, Subscription)
  end,
}
local device = {
  await_roll = function() host.await_roll() end,
  connected = function() return host.connected() end,
  battery = function() return host.battery() end,
}
return sensor, device
