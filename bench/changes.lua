-- Cancel and update against orders created beforehand (bench/world.py): half cancels, half amount
-- updates. Each cancel takes the next order of the cancel pool (BENCH_CANCELS, from line
-- BENCH_CANCEL_FROM on), so every cancel really cancels a pending commission; updates pick at random
-- from the update pool (BENCH_CHANGES: the key, then the order ids), which nothing cancels.
local threads = {}
local key, ids, cancel_ids = nil, {}, {}
local cancel_from = 0

function setup(thread) threads[#threads + 1] = thread end

function init(args)
  errors = 0
  cancels = 0
  local f = assert(io.open(os.getenv("BENCH_CHANGES") or "bench/results/.changes.txt"))
  key = f:read("*l")
  for line in f:lines() do ids[#ids + 1] = line end
  f:close()
  f = assert(io.open(os.getenv("BENCH_CANCELS") or "bench/results/.cancels.txt"))
  for line in f:lines() do cancel_ids[#cancel_ids + 1] = line end
  f:close()
  cancel_from = tonumber(os.getenv("BENCH_CANCEL_FROM") or "0")
  math.randomseed(os.time() + #threads)
end

function request()
  local headers = { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. key }
  if math.random(2) == 1 then
    -- past the end of the pool the ids wrap around (already_cancelled); bench/run.py sizes the pool
    local id = cancel_ids[(cancel_from + cancels) % #cancel_ids + 1]
    cancels = cancels + 1
    return wrk.format("POST", "/api/Affiliates/cancel", headers, string.format('{"order_id":"%s"}', id))
  end
  local id = ids[math.random(#ids)]
  local amount = string.format("%d.%02d", math.random(10, 99), math.random(0, 99))
  return wrk.format("POST", "/api/Affiliates/update", headers,
    string.format('{"order_id":"%s","new_order_amount":"%s","currency":"USD"}', id, amount))
end

function response(status, headers, body)
  if status ~= 200 then errors = errors + 1 end
end

done = dofile("bench/report.lua").done(threads)
