// Preloaded into a service process (NODE_OPTIONS=--import=…) by the multi-instance suite: the
// process's clock runs TEST_CLOCK_OFFSET_MS ahead, at real speed. Three processes given the same
// offset reach a scheduled job's instant at the same real moment, so their cron timers fire
// together, as on replicas with synchronized clocks. Test-only: never loaded by the service itself.
const offset = Math.round(Number(process.env.TEST_CLOCK_OFFSET_MS ?? 0));
if (offset) {
  const RealDate = Date;
  class ShiftedDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(RealDate.now() + offset);
      else super(...args);
    }
    static now() {
      return RealDate.now() + offset;
    }
  }
  globalThis.Date = ShiftedDate;
}
