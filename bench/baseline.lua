-- The framework's own limit: a constant JSON answer through the same server, middleware and settings.
local threads = {}

function setup(thread) threads[#threads + 1] = thread end
function init(args) errors = 0 end

local headers = { ["Content-Type"] = "application/json" }
local body = '{"orderAmount":"59.90","orderId":"x","currency":"USD","page_url":"https://shop.example/"}'

function request() return wrk.format("POST", "/api/bench/baseline", headers, body) end

function response(status, headers, body)
  if status ~= 200 then errors = errors + 1 end
end

done = dofile("bench/report.lua").done(threads)

