/**
 * Every EDI operation the tests call, relative to the EDI base that the test context's `post` and
 * `put` put in front. One list, so that a test names an operation instead of spelling its path.
 */

export const ITEM_IMPORT = '/edi/item-master/import';
export const ITEM_SEARCH = '/edi/item-master/search-by-paging';

export const RECEIPT_IMPORT = '/edi/inbound/receipt';
export const RECEIPT_CANCEL = '/edi/inbound/receipt/cancel';
export const RECEIPT_ACK_SEARCH = '/edi/inbound/receipt/ack/search-by-paging';
export const RECEIPT_RC_SEARCH = '/edi/inbound/receipt/rc/search-by-paging';
export const RECEIPT_LEVEL_SEARCH = '/edi/inbound/receipt-level/search-by-paging';
/** The 3PL's receipt operations: list, get, open, cancel, force-close, post-confirmation. */
export const THREEPL_RECEIPT = '/edi/3pl/inbound/receipt';
export const RECEIPT_CONFIRM = `${THREEPL_RECEIPT}/post-confirmation`;

export const ORDER_IMPORT = '/edi/outbound/order';
export const ORDER_CANCEL = '/edi/outbound/order/cancel';
export const ORDER_ACK_SEARCH = '/edi/outbound/order/ack/search-by-paging';
export const ORDER_DC_SEARCH = '/edi/outbound/order/dc/search-by-paging';
export const ORDER_LEVEL_SEARCH = '/edi/outbound/order-level/search-by-paging';
/** The 3PL's order operations: list, get, open, cancel, post-confirmation. */
export const THREEPL_ORDER = '/edi/3pl/outbound/order';
export const ORDER_SHIP = `${THREEPL_ORDER}/post-confirmation`;

export const ADJUST_QTY = '/edi/3pl/adjust/inventory-adjust-qty-incremental';
export const ADJUST_PROPERTY = '/edi/3pl/adjust/inventory-adjust-property';
export const INVENTORY_SEARCH = '/edi/inventory/search-by-paging';
export const LEDGER_SEARCH = '/edi/3pl/inventory/ledger/search-by-paging';

export const EVENT_SEARCH = '/edi/events/search-by-paging';

/** The webhook operations (docs/webhooks.md): endpoint create, list, update, delete, rotate-secret; delivery search-by-paging, replay. */
export const WEBHOOK_ENDPOINT = '/edi/webhook/endpoint';
export const WEBHOOK_DELIVERY = '/edi/webhook/delivery';
