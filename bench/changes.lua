-- Cancel and update against orders created beforehand: half cancels, half amount updates,
-- spread over the prepared order ids. Reads the key and the order ids from BENCH_CHANGES.
local threads = {}
local key, ids = nil, {}

function setup(thread) threads[#threads + 1] = thread end

function init(args)
  errors = 0
  local f = assert(io.open(os.getenv("BENCH_CHANGES") or "bench/results/.changes.txt"))
  key = f:read("*l")
  for line in f:lines() do ids[#ids + 1] = line end
  f:close()
  math.randomseed(os.time() + #threads)
end

function request()
  local id = ids[math.random(#ids)]
  local headers = { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. key }
  if math.random(2) == 1 then
    return wrk.format("POST", "/api/Affiliates/cancel", headers, string.format('{"order_id":"%s"}', id))
  end
  local amount = string.format("%d.%02d", math.random(10, 99), math.random(0, 99))
  return wrk.format("POST", "/api/Affiliates/update", headers,
    string.format('{"order_id":"%s","new_order_amount":"%s","currency":"USD"}', id, amount))
end

function response(status, headers, body)
  if status ~= 200 then errors = errors + 1 end
end

done = dofile("bench/report.lua").done(threads)

