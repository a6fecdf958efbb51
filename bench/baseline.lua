-- The framework's own limit: a constant JSON answer through the same server, middleware and settings.
local threads = {}

function setup(thread) threads[#threads + 1] = thread end
function init(args) errors = 0 end

local headers = { ["Content-Type"] = "application/json" }
local body = '{"orderAmount":"59.90","orderId":"x","currency":"USD","page_url":"https://shop.example/"}'

function request() return wrk.format("POST", "/bench/baseline", headers, body) end

function response(status, headers, body)
  if status ~= 200 then errors = errors + 1 end
end

function done(summary, latency, requests)
  local errs = 0
  for _, t in ipairs(threads) do errs = errs + (t:get("errors") or 0) end
  io.write(string.format('BENCH_JSON {"requests":%d,"duration_us":%d,"p50_us":%d,"p95_us":%d,"p99_us":%d,"socket_errors":%d,"server_errors":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(95), latency:percentile(99),
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout, errs))
end
