-- Order confirmation traffic as checkout pages send it: about 70% direct (no_attribution),
-- 20% tracked by click, 5% tracked by code, 5% duplicates and bad input. Every order id is fresh.
-- Reads bench/results/.world.json lines written by bench/run.py: host, then click ids.

local counter = 0
local thread_id = 0
local threads = {}
local host, clicks, code = nil, {}, nil

local function load_world()
  local f = assert(io.open(os.getenv("BENCH_WORLD") or "bench/results/.world.txt"))
  host = f:read("*l")
  code = f:read("*l")
  for line in f:lines() do clicks[#clicks + 1] = line end
  f:close()
end

function setup(thread)
  thread_id = thread_id + 1
  thread:set("tid", thread_id)
  thread:set("run", os.getenv("BENCH_RUN") or tostring(os.time()))
  threads[#threads + 1] = thread
end

function init(args)
  load_world()
  errors = 0
  statuses = {}
  math.randomseed(tid * 7919 + os.time())
end

local headers = { ["Content-Type"] = "application/json", ["Origin"] = "https://shop.example" }

function request()
  counter = counter + 1
  local id = string.format("%s-%d-%d", run, tid, counter)
  local page = "https://" .. host .. "/checkout/thank-you"
  local r = math.random(100)
  local body
  if r <= 70 then
    body = string.format('{"orderAmount":"59.90","orderId":"%s","currency":"USD","page_url":"%s","code":"","is_returning_customer":false}', id, page)
  elseif r <= 90 then
    local click = clicks[math.random(#clicks)]
    body = string.format('{"orderAmount":"59.90","orderId":"%s","currency":"USD","page_url":"%s","clickId":"%s","code":"","is_returning_customer":false}', id, page, click)
  elseif r <= 95 then
    body = string.format('{"orderAmount":"120.00","orderId":"%s","currency":"EUR","page_url":"%s","code":"%s"}', id, page, code)
  elseif r <= 97 then
    body = string.format('{"orderAmount":"59.90","orderId":"%s-1","currency":"USD","page_url":"%s"}', string.format("%s-%d-1", run, tid), page)
  else
    body = string.format('{"orderAmount":"***THE ORDER TOTAL***","orderId":"%s","currency":"USD","page_url":"%s"}', id, page)
  end
  return wrk.format("POST", "/api/order_confirmation", headers, body)
end

function response(status, headers, body)
  if status >= 500 or status < 200 then errors = errors + 1 end
end

done = dofile("bench/report.lua").done(threads)

