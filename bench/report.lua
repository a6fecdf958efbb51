-- The one result line bench/run.py reads: requests, latency percentiles and the errors of all threads
-- (socket errors, and the `errors` each thread's response() counted), and the cancels sent (the ids of
-- the cancel pool a run used up; 0 for scripts that send none). Loaded by every scenario script.
local report = {}

function report.done(threads)
  return function(summary, latency, requests)
    local errs, cancels = 0, 0
    for _, t in ipairs(threads) do
      errs = errs + (t:get("errors") or 0)
      cancels = cancels + (t:get("cancels") or 0)
    end
    io.write(string.format('BENCH_JSON {"requests":%d,"duration_us":%d,"p50_us":%d,"p95_us":%d,"p99_us":%d,"socket_errors":%d,"server_errors":%d,"cancels":%d}\n',
      summary.requests, summary.duration, latency:percentile(50), latency:percentile(95), latency:percentile(99),
      summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout, errs, cancels))
  end
end

return report
