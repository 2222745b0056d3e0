import { Injectable } from '@nestjs/common';

/** The time source of every rule that depends on "now"; tests replace it to cross day boundaries. */
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }
}

/** A clock tests can set and move. */
export class FixedClock extends Clock {
  constructor(private current: Date = new Date()) {
    super();
  }
  override now(): Date {
    return new Date(this.current.getTime());
  }
  set(to: Date | string): void {
    this.current = new Date(to);
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}
