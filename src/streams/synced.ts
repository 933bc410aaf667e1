/** The synced signal: true once every projection has delivered its snapshot (and while they stay caught up). */
import { combineLatest, distinctUntilChanged, map, type Observable } from "rxjs";

export function allSynced(signals: readonly Observable<boolean>[]): Observable<boolean> {
  return combineLatest(signals).pipe(
    map((xs) => xs.every(Boolean)),
    distinctUntilChanged(),
  );
}
