import { formatFacilityLocal } from '../../http/time.js';
import type { AckRow } from './acks.repository.js';
import type { AckRecord } from './acks.schemas.js';

/** A ReferenceNo that came as a JSON number is echoed as one (spec 2.9). */
function referenceNoOf(row: AckRow): string | number | null {
  if (row.reference_no === null) return null;
  return row.reference_no_type === 'number' ? Number(row.reference_no) : row.reference_no;
}

export function presentAck(row: AckRow, timeZone: string): AckRecord {
  const referenceNo = referenceNoOf(row);
  return {
    FacilityID: row.facility_id,
    CustomerID: row.customer_id,
    ReferenceNo: referenceNo,
    PONo: row.po_no,
    ACK:
      row.failure_code !== null
        ? { code: row.failure_code, error: row.failure_error ?? '' }
        : {
            CustomerId: row.customer_id,
            PONo: row.po_no,
            ReferenceNo: referenceNo,
            SVCPOID: row.svcpoid,
            Status: row.status as 'Success' | 'Warning',
            Error: row.error,
          },
    CreatedWhen: formatFacilityLocal(row.created_at, timeZone),
  };
}
