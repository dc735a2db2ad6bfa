"""Telling the claims system what happened: signed webhooks sent from the store's outbox.

config.py   config/webhooks.yaml: the endpoints, the events each wants, the retry schedule
signing.py  Standard Webhooks signatures: signing what is sent, and checking one as a receiver
sender.py   one pass: events fanned out to deliveries, due deliveries taken, POSTed and marked
sending.py  one try: a signed POST under one deadline, the answer's body capped
targets.py  where a webhook may go: public addresses, unless an endpoint allows private ones
loop.py     the passes run every second in a thread of `claims-crew serve`

The store writes each event in the transaction of what it announces (store/outbox.py); what is
here only reads them out and sends them, so a receiver that is down loses nothing: its
deliveries wait in the store until it answers, or until the retries are spent.
"""
